// Handlers registered through a choice or a variable get no point either: both arms of
// `c ? h : SIG_IGN` (a phi at -O0, a select at -O2), a handler stored in a sigaction
// through a choice, one copied into a local variable first, and one taken from a table.
// Found by a tester building outside code, 2026-12-04: only a function passed or stored
// directly was seen. Both optimisation levels, since the IR's shape differs.
// RUN: %clang -O0 -fno-discard-value-names -c %s -o %t.o -Xclang -load -Xclang %plugin \
// RUN:   -fpass-plugin=%plugin -mllvm -ito-yield-report 2> %t.rep
// RUN: %FileCheck %s < %t.rep
// RUN: %clang -O2 -fno-discard-value-names -c %s -o %t2.o -Xclang -load -Xclang %plugin \
// RUN:   -fpass-plugin=%plugin -mllvm -ito-yield-report 2> %t2.rep
// RUN: %FileCheck %s < %t2.rep
#include <signal.h>
#include <string.h>

volatile int g;

// CHECK-DAG: ito-yield: hA: skipped (signal handler)
// CHECK-DAG: ito-yield: hB: skipped (signal handler)
// CHECK-DAG: ito-yield: hD: skipped (signal handler)
// CHECK-DAG: ito-yield: hE: skipped (signal handler)
void hA(int s) { for (int k = 0; k < s; k++) g++; }
void hB(int s) { for (int k = 0; k < s; k++) g--; }
void hD(int s) { for (int k = 0; k < s; k++) g += 4; }
void hE(int s) { for (int k = 0; k < s; k++) g += 5; }
typedef void (*sh)(int);
static sh table[] = {hD};
void i1(int c) { signal(SIGINT, c ? hA : SIG_IGN); }
void i2(int c)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = c ? hB : SIG_DFL;
    sigaction(SIGTERM, &sa, 0);
}
void i4(void) { signal(SIGUSR1, table[0]); }
void i5(void)
{
    sh h = hE;
    signal(SIGUSR2, h);
}

// The loaded field alone, not the whole struct it sits in (found by a reviewer: the
// program's main loop beside the handler lost its points).
// CHECK-DAG: ito-yield: hF: skipped (signal handler)
// CHECK-DAG: ito-yield: run_loop: {{.*}} begin live_begin
void hF(int s) { for (int k = 0; k < s; k++) g += 6; }
int run_loop(int n) { int s = 0; for (int i = 0; i < n; i++) s += i * g; return s; }
struct app { void (*on_int)(int); int (*run)(int); };
struct app app = {hF, run_loop};
int i6(int argc) { signal(SIGINT, app.on_int); return app.run(argc); }

// A writable global struct sigaction with the handler in its initialiser (found by a
// tester, 2026-12-04: hG kept its points at -O0 and -O2); the struct's other fields are
// not handlers.
// CHECK-DAG: ito-yield: hG: skipped (signal handler)
void hG(int s) { for (int k = 0; k < s; k++) g += 7; }
static struct sigaction g_sa = {.sa_handler = hG};
void i7(void) { sigaction(SIGQUIT, &g_sa, 0); }

// CHECK-DAG: ito-yield: plain: entry
int plain(int n) { int s = 0; for (int i = 0; i < n; i++) s += i * g; return s; }
