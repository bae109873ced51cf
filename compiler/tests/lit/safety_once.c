// pthread_once and C11 call_once routines get no point, nor what they call (directly,
// transitively): while the routine runs, a second caller of the same once object blocks
// its kernel thread in a futex, so a ULT switched out inside the routine left the workers
// that ran other callers blocked for ever (16 ULTs on 2 workers calling pthread_once with
// an instrumented routine under FLAG preemption hung in 3 runs of 3; found by an outside
// tester, h65b, 2026-12-06). Routines passed directly, through a choice and through a local
// variable; both optimisation levels, since the IR's shape differs.
// RUN: %clang -O0 -fno-discard-value-names -c %s -o %t.o -Xclang -load -Xclang %plugin \
// RUN:   -fpass-plugin=%plugin -mllvm -ito-yield-report 2> %t.rep
// RUN: %FileCheck %s < %t.rep
// RUN: %clang -O2 -fno-discard-value-names -c %s -o %t2.o -Xclang -load -Xclang %plugin \
// RUN:   -fpass-plugin=%plugin -mllvm -ito-yield-report 2> %t2.rep
// RUN: %FileCheck %s < %t2.rep
#include <pthread.h>
#include <threads.h>

volatile int g;

// CHECK-DAG: ito-yield: fill: skipped (once routine)
// CHECK-DAG: ito-yield: initA: skipped (once routine)
// CHECK-DAG: ito-yield: initB: skipped (once routine)
// CHECK-DAG: ito-yield: initC: skipped (once routine)
// CHECK-DAG: ito-yield: initD: skipped (once routine)
__attribute__((noinline)) void fill(int n) { for (int k = 0; k < n; k++) g += k; }
void initA(void) { fill(1000); }
void initB(void) { for (int k = 0; k < 1000; k++) g--; }
void initC(void) { for (int k = 0; k < 1000; k++) g ^= k; }
void initD(void) { for (int k = 0; k < 1000; k++) g += 3; }
static pthread_once_t oa = PTHREAD_ONCE_INIT, ob = PTHREAD_ONCE_INIT, oc = PTHREAD_ONCE_INIT;
static once_flag od = ONCE_FLAG_INIT;
void useA(void) { pthread_once(&oa, initA); }
void useB(int c) { pthread_once(&ob, c ? initB : initC); }
void useC(void)
{
    void (*f)(void) = initC;
    pthread_once(&oc, f);
}
void useD(void) { call_once(&od, initD); }

// An ordinary function keeps its points.
// CHECK-DAG: ito-yield: plain: {{.*}}live_begin
int plain(int n) { int s = 0; for (int i = 0; i < n; i++) s += i * g; return s; }
