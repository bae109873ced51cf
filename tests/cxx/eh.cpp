// tests/cxx/eh.cpp: C++ exceptions in ULTs that switch inside catch blocks (src/core/ultstate.h).
// Run by tests/cxx_check.sh with g++ and clang++-19 (the name cxx_eh in ctest).
//
// The C++ ABI keeps the exceptions being handled per kernel thread. Two ULTs on one worker
// each catch their own exception and switch to the other while inside the handler; each
// must then rethrow (`throw;`) and see its own exception, see it as
// std::current_exception(), and count its own uncaught exceptions (a destructor that
// yields during unwinding). Before the fix the first ULT's `throw;` rethrew the second
// one's exception. Then with two workers: a ULT catches on one worker, blocks, is woken
// by a ULT bound to the other worker and resumes there, and rethrows its exception there
// (before the fix: no exception on that kernel thread, std::terminate). And a join inside a
// catch block that runs the child inline (join_in_handler).
#include <ito/ito.h>

#include "cxx_test.h"

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <stdexcept>

namespace {

struct Tagged : std::runtime_error {
    char tag;
    explicit Tagged(char t) : std::runtime_error("tagged"), tag(t) {}
};

char tag_of(const std::exception_ptr &p)
{
    try {
        std::rethrow_exception(p);
    } catch (const Tagged &t) {
        return t.tag;
    } catch (...) {
        return '?';
    }
}

std::atomic<int> turn{0};

void wait_turn(int t)
{
    while (turn != t) ito_yield();
}

// Yields while its ULT unwinds: the other ULT runs with one exception in flight here.
struct YieldingGuard {
    ~YieldingGuard()
    {
        check(std::uncaught_exceptions() == 1, "B: one exception in flight in its destructor");
        turn = 5;
        wait_turn(6);
        check(std::uncaught_exceptions() == 1, "B: still one in flight after A ran");
    }
};

void *ult_a(void *)
{
    try {
        throw Tagged('A');
    } catch (const Tagged &) {
        turn = 1;
        wait_turn(2); // B is inside its own handler now
        check(tag_of(std::current_exception()) == 'A', "A: current_exception is A's");
        try {
            throw;
        } catch (const Tagged &again) {
            check(again.tag == 'A', "A: throw; rethrows A's exception");
        }
        turn = 3;
    }
    wait_turn(5); // B is unwinding through its YieldingGuard
    check(std::uncaught_exceptions() == 0, "A: no exception in flight while B unwinds");
    check(!std::current_exception(), "A: no current exception outside a handler");
    turn = 6;
    return nullptr;
}

void *ult_b(void *)
{
    wait_turn(1);
    try {
        throw Tagged('B');
    } catch (const Tagged &) {
        turn = 2;
        wait_turn(3);
        check(tag_of(std::current_exception()) == 'B', "B: current_exception is B's");
        try {
            throw;
        } catch (const Tagged &again) {
            check(again.tag == 'B', "B: throw; rethrows B's exception");
        }
    }
    try {
        YieldingGuard g;
        throw Tagged('C');
    } catch (const Tagged &c) {
        check(c.tag == 'C', "B: caught C");
    }
    return nullptr;
}

// A joiner inside a catch block joins a child it has just made (on one worker, outside
// the sanitizer trees, the join runs the child inline, on the joiner's kernel thread): the
// child sees no exception of its joiner's, and the joiner still has its own afterwards.
void *child(void *)
{
    check(!std::current_exception(), "child: no current exception of its joiner's");
    check(std::uncaught_exceptions() == 0, "child: nothing in flight");
    try {
        throw Tagged('K');
    } catch (const Tagged &k) {
        check(k.tag == 'K', "child: caught its own");
    }
    return nullptr;
}

void join_in_handler()
{
    try {
        throw Tagged('J');
    } catch (const Tagged &) {
        ito_thread_t k;
        if (ito_create(&k, child, nullptr, nullptr) != ITO_OK || ito_join(k, nullptr) != ITO_OK) {
            check(false, "J: create and join");
            return;
        }
        try {
            throw;
        } catch (const Tagged &again) {
            check(again.tag == 'J', "J: throw; after the join rethrows J's exception");
        }
    }
}

ito_sem_t sem;
std::atomic<int> caught_on{-1}, resumed_on{-1}; // shared by ULTs on two workers

void *catcher(void *)
{
    try {
        throw Tagged('M');
    } catch (const Tagged &) {
        caught_on = ito_worker_id();
        ito_sem_wait(&sem); // woken from worker 1
        resumed_on = ito_worker_id();
        try {
            throw;
        } catch (const Tagged &again) {
            check(again.tag == 'M', "M: throw; after resuming rethrows M's exception");
        }
    }
    check(!std::current_exception(), "M: nothing left after the handler");
    return nullptr;
}

// One poster bound to each worker. The one on the other worker than the catcher's wakes
// it, after a pause that lets it block; the wake-up queues it on the poster's worker. The
// one on the catcher's worker keeps that worker busy meanwhile (no yield, at most 2 s), so
// that it cannot take the catcher back.
void *poster(void *arg)
{
    int mine = static_cast<int>(reinterpret_cast<intptr_t>(arg));
    while (caught_on < 0) ito_yield();
    if (caught_on == mine) {
        uint64_t until = ito_now_ns() + 2000000000u;
        while (resumed_on < 0 && ito_now_ns() < until) {
        }
        return nullptr;
    }
    ito_sleep_ns(1000000);
    ito_sem_post(&sem);
    return nullptr;
}

int run(int workers)
{
    ito_config_t cfg{};
    cfg.workers = workers;
    if (ito_init(&cfg) != ITO_OK) return 1;
    if (workers == 1) {
        if (!run_pair(ult_a, ult_b)) return 1;
        check(turn == 6, "both ULTs ran to their end");
        join_in_handler();
    } else {
        int moved = 0;
        for (int i = 0; i < 20; i++) {
            caught_on = -1;
            resumed_on = -1;
            ito_sem_init(&sem, 0);
            ito_thread_t c, p[2];
            if (ito_create(&c, catcher, nullptr, nullptr) != ITO_OK) return 1; // unbound: it may move
            for (int k = 0; k < 2; k++) {
                ito_attr_t at;
                ito_attr_init(&at);
                at.worker = k;
                if (ito_create(&p[k], poster, reinterpret_cast<void *>(static_cast<intptr_t>(k)), &at) != ITO_OK)
                    return 1;
            }
            ito_join(c, nullptr);
            ito_join(p[0], nullptr);
            ito_join(p[1], nullptr);
            ito_sem_destroy(&sem);
            moved += caught_on != resumed_on;
        }
        std::printf("cxx_eh: the catcher resumed on another worker in %d of 20 rounds\n", moved);
        check(moved > 0, "the catcher never moved between workers (nothing tested)");
    }
    return ito_finalize() == ITO_OK ? 0 : 1;
}

} // namespace

int main()
{
    if (run(1) != 0 || run(2) != 0) {
        std::fprintf(stderr, "FAIL: runtime calls\n");
        return 1;
    }
    if (cxx_test_failures) return 1;
    std::printf("cxx_eh: ok\n");
    return 0;
}
