// tests/cxx/headers.cpp: every public header of ito compiles as C++17 (run by
// tests/cxx_check.sh with g++ and clang++-19, -Wall -Wextra -Werror), and a tiny C++
// program links with libito and runs: a ULT made from a lambda, a mutex, the
// thread_local ito_coop_flag read through ITO_COOP_POINT() from C++, the version, and a
// typed channel (ITO_CHAN_TYPED expands to C++ too).
// Each header comes first once in its own translation unit (cxx_check.sh); here all
// of them, then the umbrella header, are included together.
#include <ito/error.h>
#include <ito/version.h>
#include <ito/thread.h>
#include <ito/sync.h>
#include <ito/channel.h>
#include <ito/future.h>
#include <ito/tls.h>
#include <ito/debug.h>
#include <ito/time.h>
#include <ito/coop.h>
#include <ito/zwt.h>
#include <ito/spawn.h>
#include <ito/syscall.h>
#include <ito/preempt.h>
#include <ito/regwin.h>
#include <ito/ito.h>

#include <atomic>
#include <cstdio>
#include <cstring>

ITO_CHAN_TYPED(long_chan, long)

namespace {

struct shared_state {
    ito_mutex_t lock;
    long sum = 0;
    std::atomic<int> coop_points{0};
};

int fail(const char *what, int rc)
{
    std::fprintf(stderr, "cxx headers: %s returned %d (%s)\n", what, rc, ito_strerror(rc));
    return 1;
}

} // namespace

int main()
{
    if (std::strcmp(ito_version(nullptr, nullptr, nullptr), ITO_VERSION_STRING) != 0) {
        std::fprintf(stderr, "cxx headers: ito_version() != ITO_VERSION_STRING\n");
        return 1;
    }
    int rc = ito_init(nullptr);
    if (rc != ITO_OK) return fail("ito_init", rc);
    shared_state st;
    if ((rc = ito_mutex_init(&st.lock)) != ITO_OK) return fail("ito_mutex_init", rc);

    ito_fn_t add = [](void *arg) -> void * {
        auto *s = static_cast<shared_state *>(arg);
        for (int i = 1; i <= 100; i++) {
            ITO_COOP_POINT(); // reads the thread_local flag from C++
            if (ito_mutex_lock(&s->lock) != ITO_OK) return nullptr;
            s->sum += i;
            ito_mutex_unlock(&s->lock);
            s->coop_points.fetch_add(1, std::memory_order_relaxed);
        }
        return arg;
    };
    ito_thread_t t[4];
    for (auto &h : t)
        if ((rc = ito_create(&h, add, &st, nullptr)) != ITO_OK) return fail("ito_create", rc);
    for (auto &h : t) {
        void *ret = nullptr;
        if ((rc = ito_join(h, &ret)) != ITO_OK) return fail("ito_join", rc);
        if (ret != &st) return fail("the ULT's return value", ITO_ESTATE);
    }
    ito_mutex_destroy(&st.lock);
    long_chan_t ch;
    long got = 0, v = 42;
    if ((rc = long_chan_create(&ch, 1)) != ITO_OK) return fail("long_chan_create", rc);
    if ((rc = long_chan_try_send(ch, &v)) != ITO_OK) return fail("long_chan_try_send", rc);
    if ((rc = long_chan_recv(ch, &got)) != ITO_OK || got != 42) return fail("long_chan_recv", rc);
    long_chan_destroy(ch);
    if ((rc = ito_finalize()) != ITO_OK) return fail("ito_finalize", rc);
    if (st.sum != 4 * 5050 || st.coop_points.load() != 400) {
        std::fprintf(stderr, "cxx headers: sum %ld, points %d\n", st.sum, st.coop_points.load());
        return 1;
    }
    std::printf("ok cxx headers (ito %s)\n", ITO_VERSION_STRING);
    return 0;
}
