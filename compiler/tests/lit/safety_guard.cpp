// The initialiser of a C++ function-local static gets no point, nor what it calls (directly,
// transitively), nor the blocks of its function that may run while the guard is held
// (__cxa_guard_acquire ... __cxa_guard_release): the guard is a once object, and a second
// ULT that reached the static while the first was switched out inside its initialiser
// aborted the program (libstdc++'s recursive_init_error, 1 worker) or blocked its worker's
// kernel thread in the guard's futex for ever (2 workers; 8 ULTs under 100 us FLAG
// preemption, every run; found by an outside tester, h78c, 2026-12-08). The rest of the
// function, also the path on which the static was initialised already, keeps its points.
// RUN: %clang -x c++ -O0 -fno-discard-value-names -c %s -o %t.o -Xclang -load -Xclang %plugin \
// RUN:   -fpass-plugin=%plugin -mllvm -ito-yield-report 2> %t.rep
// RUN: %FileCheck %s < %t.rep
// RUN: %clang -x c++ -O2 -fno-discard-value-names -c %s -o %t2.o -Xclang -load -Xclang %plugin \
// RUN:   -fpass-plugin=%plugin -mllvm -ito-yield-report 2> %t2.rep
// RUN: %FileCheck %s < %t2.rep
volatile int g;

// CHECK-DAG: ito-yield: slow_init: skipped (static initialiser)
// CHECK-DAG: ito-yield: helper: skipped (static initialiser)
extern "C" __attribute__((noinline)) void helper(int n) { for (int k = 0; k < n; k++) g += k; }
extern "C" __attribute__((noinline)) long slow_init(long n) { helper(10); long s = 0; for (long i = 0; i < n; i++) s += i * g; return s; }
// CHECK-DAG: ito-yield: get: {{.*}}live_begin
// CHECK-DAG: ito-yield: after: {{.*}}live_begin
extern "C" __attribute__((noinline)) long after(long v) { for (int k = 0; k < 100; k++) v += g; return v; }
extern "C" long get(long n)
{
    static long v = slow_init(n);
    long s = 0;
    for (long i = 0; i < n; i++) s += after(v + i); // a loop after the guard: it keeps points
    return s;
}
// CHECK-NOT: ito-yield: get: skipped
// CHECK-NOT: ito-yield: after: skipped
