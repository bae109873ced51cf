// tests/cxx/once.cpp: ito_once with a C++ fn that throws behaves as std::call_once (the
// exception reaches its caller, the object is not done, the next caller runs fn again).
// Run by tests/cxx_check.sh with g++ and clang++-19 (the name cxx_once in ctest).
//
// One worker: ULT A calls ito_once; fn (the first time) yields, so that ULT B calls
// ito_once meanwhile and waits, then throws. A catches the exception; B wakes, runs fn
// again (which returns this time) and returns ITO_OK; A's second ito_once returns at once.
// Before the fix the object stayed RUNNING: A's second call got ITO_EDEADLK and B waited
// for ever (here: until the 60 s alarm).
#include <ito/ito.h>

#include "cxx_test.h"

#include <atomic>
#include <cstdio>
#include <stdexcept>

#include <unistd.h>

namespace {

ito_once_t once = ITO_ONCE_INIT;
std::atomic<int> calls{0}, b_waiting{0};

void init_fn()
{
    int n = ++calls;
    if (n == 1) {
        while (!b_waiting) ito_yield(); // B is about to wait on the object
        ito_yield();                     // and now waits
        throw std::runtime_error("first init fails");
    }
}

void *ult_a(void *)
{
    bool caught = false;
    try {
        ito_once(&once, init_fn);
    } catch (const std::runtime_error &) {
        caught = true;
    }
    check(caught, "A: the exception from fn reached ito_once's caller");
    check(ito_once(&once, init_fn) == ITO_OK, "A: the second ito_once returns ITO_OK");
    return nullptr;
}

void *ult_b(void *)
{
    while (calls == 0) ito_yield();
    b_waiting = 1;
    check(ito_once(&once, init_fn) == ITO_OK, "B: ito_once returns ITO_OK after running fn itself");
    return nullptr;
}

} // namespace

int main()
{
    alarm(60); // a waiter left waiting for ever fails the test instead of hanging it
    ito_config_t cfg{};
    cfg.workers = 1;
    if (ito_init(&cfg) != ITO_OK) return 1;
    if (!run_pair(ult_a, ult_b)) return 1;
    check(calls == 2, "fn ran twice: the throwing run and the one that returned");
    if (ito_finalize() != ITO_OK) return 1;
    // outside a runtime too (no waiting): throw, then run
    ito_once_t o2 = ITO_ONCE_INIT;
    struct Thrower {
        static void fn()
        {
            static int n;
            if (n++ == 0) throw std::logic_error("once more");
        }
    };
    bool caught = false;
    try {
        ito_once(&o2, Thrower::fn);
    } catch (const std::logic_error &) {
        caught = true;
    }
    check(caught, "outside the runtime: the exception reached the caller");
    check(ito_once(&o2, Thrower::fn) == ITO_OK, "outside the runtime: the second call ran fn");
    if (cxx_test_failures) return 1;
    std::printf("cxx_once: ok\n");
    return 0;
}
