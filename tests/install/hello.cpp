// hello.cpp: a C++17 program outside ito's tree, built against an installed ito
// (pkg-config, find_package) by tests/install/install_check.sh. Sixteen ULTs made from
// a lambda append their index to a std::vector under an ito mutex; main checks that
// every index is there once. Prints "ok" and exits 0 when all is right.
#include <ito/ito.h>

#include <algorithm>
#include <cstdio>
#include <vector>

namespace {
struct shared_list {
    ito_mutex_t lock;
    std::vector<int> seen;
};
struct task {
    shared_list *list;
    int index;
};
} // namespace

int main()
{
    if (ito_init(nullptr) != ITO_OK) return 1;
    shared_list list;
    if (ito_mutex_init(&list.lock) != ITO_OK) return 1;
    std::vector<task> tasks(16);
    std::vector<ito_thread_t> threads(tasks.size());
    ito_fn_t append = [](void *arg) -> void * {
        auto *t = static_cast<task *>(arg);
        if (ito_mutex_lock(&t->list->lock) != ITO_OK) return nullptr;
        t->list->seen.push_back(t->index);
        ito_mutex_unlock(&t->list->lock);
        return t;
    };
    for (size_t i = 0; i < tasks.size(); i++) {
        tasks[i] = task{&list, static_cast<int>(i)};
        if (ito_create(&threads[i], append, &tasks[i], nullptr) != ITO_OK) return 1;
    }
    for (size_t i = 0; i < threads.size(); i++) {
        void *r = nullptr;
        if (ito_join(threads[i], &r) != ITO_OK || r != &tasks[i]) return 1;
    }
    ito_mutex_destroy(&list.lock);
    if (ito_finalize() != ITO_OK) return 1;
    std::sort(list.seen.begin(), list.seen.end());
    for (size_t i = 0; i < tasks.size(); i++)
        if (i >= list.seen.size() || list.seen[i] != static_cast<int>(i)) {
            std::fprintf(stderr, "hello-cxx: index %zu missing\n", i);
            return 1;
        }
    std::printf("ok hello-cxx (ito %s)\n", ITO_VERSION_STRING);
    return 0;
}
