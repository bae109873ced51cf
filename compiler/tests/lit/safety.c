// Functions where no yield may go, and va_start..va_end regions.
// RUN: %clang -O1 -fno-discard-value-names -c %s -o %t.o -Xclang -load -Xclang %plugin \
// RUN:   -fpass-plugin=%plugin -mllvm -ito-yield-report 2> %t.rep
// RUN: %FileCheck %s < %t.rep
// RUN: %FileCheck %s --check-prefix=NOVA < %t.rep
// RUN: %clang -O1 -fno-discard-value-names -c %s -o %t2.o -Xclang -load -Xclang %plugin \
// RUN:   -fpass-plugin=%plugin -mllvm -ito-yield-report -mllvm -ito-yield-allow-va-regions 2> %t2.rep
// RUN: %FileCheck %s --check-prefix=VA < %t2.rep
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#pragma clang diagnostic ignored "-Wdeprecated-declarations" /* sigset */

#define ito_noyield __attribute__((annotate("ito_noyield")))

volatile int sink;

// CHECK-DAG: ito-yield: plain: entry
int plain(int n) { int s = 0; for (int i = 0; i < n; i++) s += i * sink; return s; }

// CHECK-DAG: ito-yield: quiet: skipped (ito_noyield)
ito_noyield int quiet(int n) { int s = 0; for (int i = 0; i < n; i++) s += i * sink; return s; }

// setjmp's and sigsetjmp's callers get points (an interpreter's dispatch loop that catches
// its exceptions with setjmp, mruby's mrb_vm_exec, had none: h74b); vfork's do not.
// CHECK-DAG: ito-yield: jumper: for.body
// CHECK-DAG: ito-yield: sigjumper: for.body
// CHECK-DAG: ito-yield: forker: skipped (returns_twice)
#include <unistd.h>
jmp_buf jb;
sigjmp_buf sjb;
int jumper(int n) { if (setjmp(jb)) return -1; for (int i = 0; i < n; i++) sink += i; return n; }
int sigjumper(int n) { if (sigsetjmp(sjb, 1)) return -1; for (int i = 0; i < n; i++) sink += i; return n; }
int forker(int n) { for (int i = 0; i < n; i++) sink += i; return vfork(); }

// CHECK-DAG: ito-yield: on_int: skipped (signal handler)
// CHECK-DAG: ito-yield: handler_helper: skipped (signal handler)
// CHECK-DAG: ito-yield: on_term: skipped (signal handler)
// CHECK-DAG: ito-yield: on_usr: skipped (signal handler)
__attribute__((noinline)) void handler_helper(int s) { for (int i = 0; i < s; i++) sink += i; }
void on_int(int s) { handler_helper(s); }
void on_term(int s) { for (int i = 0; i < s; i++) sink -= i; }
void on_usr(int s, siginfo_t *si, void *uc) { (void)si; (void)uc; for (int i = 0; i < s; i++) sink ^= i; }
// CHECK-DAG: ito-yield: on_hup: skipped (signal handler)
void on_hup(int s) { for (int i = 0; i < s; i++) sink += 2 * i; }
void install(void) {
    signal(SIGINT, on_int);
    sigset(SIGHUP, on_hup);
    struct sigaction sa = {0};
    sa.sa_handler = on_term;
    sigaction(SIGTERM, &sa, 0);
    static const struct sigaction sb = {.sa_sigaction = on_usr, .sa_flags = SA_SIGINFO};
    sigaction(SIGUSR1, &sb, 0);
}

// IFUNC resolvers run in the loader (in a -static program before the thread pointer is
// set up): neither a hand-written one and its helper, nor the one clang makes for
// target_clones, gets a point; the clones themselves do.
// CHECK-DAG: ito-yield: resolve_add: skipped (ifunc resolver)
// CHECK-DAG: ito-yield: resolve_helper: skipped (ifunc resolver)
// CHECK-DAG: ito-yield: tc.resolver: skipped (ifunc resolver)
// CHECK-DAG: ito-yield: tc.default{{[.0-9]*}}: entry
static int impl_a(int x) { return x + 1; }
static int impl_b(int x) { return x + 2; }
__attribute__((noinline)) static int resolve_helper(void) { int s = 0; for (int i = 0; i < sink; i++) s += i; return s; }
static void *resolve_add(void) { return resolve_helper() == 3 ? (void *)impl_a : (void *)impl_b; }
int add(int) __attribute__((ifunc("resolve_add")));
__attribute__((target_clones("avx2", "default"))) int tc(int n) { int s = 0; for (int i = 0; i < n; i++) s += i * sink; return s; }

// In `summ` the loop that reads the arguments (clang's vaarg.* blocks) is inside the va
// region: no point there by default; the loop after va_end gets its point.
// CHECK-DAG: ito-yield: summ: for.body{{[0-9]+}} begin
// NOVA: ito-yield: plain: entry
// NOVA-NOT: ito-yield: summ: vaarg
// VA-DAG: ito-yield: summ: vaarg.end
// VA-DAG: ito-yield: summ: for.body{{[0-9]+}} begin
int summ(int n, ...) {
    va_list ap;
    va_start(ap, n);
    int s = 0;
#pragma clang loop unroll(disable)
    for (int i = 0; i < n; i++) { s += va_arg(ap, int); }
    va_end(ap);
#pragma clang loop unroll(disable) vectorize(disable)
    for (int i = 0; i < n; i++) { s += i * sink; }
    return s;
}
