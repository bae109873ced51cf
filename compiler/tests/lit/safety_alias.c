// Calls through an alias are direct calls (glibc's strong_alias idiom): what a resolver or
// a signal handler calls that way gets no point either. At -O0 the call stays a call of
// the alias (at -O1 the optimiser turns it into a call of the aliasee). Found by a
// reviewer, 2026-12-04: the resolver's helper kept its checks and a -static program
// crashed before main.
// RUN: %clang -O0 -fno-discard-value-names -c %s -o %t.o -Xclang -load -Xclang %plugin \
// RUN:   -fpass-plugin=%plugin -mllvm -ito-yield-report 2> %t.rep
// RUN: %FileCheck %s < %t.rep
#include <signal.h>

volatile int sink;

// CHECK-DAG: ito-yield: count_features: skipped (ifunc resolver)
// CHECK-DAG: ito-yield: resolve_f: skipped (ifunc resolver)
int count_features(void) { int s = 0; for (int i = 0; i < 100 + sink; i++) s += i ^ sink; return s; }
int cpu_features(void) __attribute__((alias("count_features")));
static int impl_a(int x) { return x + 1; }
static int impl_b(int x) { return x + 2; }
static void *resolve_f(void) { return cpu_features() & 1 ? (void *)impl_a : (void *)impl_b; }
int f(int) __attribute__((ifunc("resolve_f")));

// CHECK-DAG: ito-yield: on_int: skipped (signal handler)
// CHECK-DAG: ito-yield: tidy: skipped (signal handler)
void tidy(int s) { for (int i = 0; i < s; i++) sink += i; }
void tidy_alias(int s) __attribute__((alias("tidy")));
void on_int(int s) { tidy_alias(s); }
void install(void) { signal(SIGINT, on_int); }

// CHECK-DAG: ito-yield: plain: entry
int plain(int n) { int s = 0; for (int i = 0; i < n; i++) s += i * sink; return s; }
