// Callbacks that glibc calls with a lock of its own held get no point, nor what they call
// (directly, transitively): dl_iterate_phdr's callback (the loader's recursive lock, owned
// by the kernel thread), printf's custom conversions (register_printf_specifier/_function's
// handler and arginfo, register_printf_type's va_arg function: the stream's lock),
// pthread_atfork's handlers (fork's handler lock) and fopencookie's functions (the stream's
// lock). A switch inside one kept the lock on a ULT: 8 ULTs on 2 workers under FLAG
// preemption hung in dl_iterate_phdr (the loader's lock stayed with the old worker's
// thread), and printf handlers and cookie writers of two ULTs on one worker ran inside the
// same stream at once (their output interleaved); found by an outside tester, h78c,
// 2026-12-08. Callbacks passed directly, through a choice and through a local variable;
// cookie functions in a local struct, a constant and a writable global, copied or passed;
// both optimisation levels, since the IR's shape differs.
// RUN: %clang -O0 -w -fno-discard-value-names -c %s -o %t.o -Xclang -load -Xclang %plugin \
// RUN:   -fpass-plugin=%plugin -mllvm -ito-yield-report 2> %t.rep
// RUN: %FileCheck %s < %t.rep
// RUN: %clang -O2 -w -fno-discard-value-names -c %s -o %t2.o -Xclang -load -Xclang %plugin \
// RUN:   -fpass-plugin=%plugin -mllvm -ito-yield-report 2> %t2.rep
// RUN: %FileCheck %s < %t2.rep
#define _GNU_SOURCE
#include <link.h>
#include <printf.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>

volatile int g;

// CHECK-DAG: ito-yield: fill: skipped (called under a libc lock)
// CHECK-DAG: ito-yield: phdr_cb: skipped (called under a libc lock)
// CHECK-DAG: ito-yield: conv_a: skipped (called under a libc lock)
// CHECK-DAG: ito-yield: conv_b: skipped (called under a libc lock)
// CHECK-DAG: ito-yield: conv_info: skipped (called under a libc lock)
// CHECK-DAG: ito-yield: old_conv: skipped (called under a libc lock)
// CHECK-DAG: ito-yield: old_info: skipped (called under a libc lock)
// CHECK-DAG: ito-yield: type_va: skipped (called under a libc lock)
// CHECK-DAG: ito-yield: fork_prepare: skipped (called under a libc lock)
// CHECK-DAG: ito-yield: fork_parent: skipped (called under a libc lock)
// CHECK-DAG: ito-yield: cookie_w1: skipped (called under a libc lock)
// CHECK-DAG: ito-yield: cookie_w2: skipped (called under a libc lock)
// CHECK-DAG: ito-yield: cookie_w3: skipped (called under a libc lock)
// CHECK-DAG: ito-yield: cookie_close: skipped (called under a libc lock)
__attribute__((noinline)) void fill(int n) { for (int k = 0; k < n; k++) g += k; }
static int phdr_cb(struct dl_phdr_info *i, size_t s, void *d) { fill(1000); return 0; }
int use_phdr(void) { return dl_iterate_phdr(phdr_cb, 0); }
int conv_a(FILE *f, const struct printf_info *i, const void *const *a) { for (int k = 0; k < 1000; k++) g++; return fprintf(f, "a"); }
int conv_b(FILE *f, const struct printf_info *i, const void *const *a) { for (int k = 0; k < 1000; k++) g--; return 0; }
int conv_info(const struct printf_info *i, size_t n, int *t, int *s) { for (int k = 0; k < 1000; k++) g ^= k; return 1; }
int old_conv(FILE *f, const struct printf_info *i, const void *const *a) { for (int k = 0; k < 1000; k++) g += 2; return 0; }
int old_info(const struct printf_info *i, size_t n, int *t) { for (int k = 0; k < 1000; k++) g -= 2; return 1; }
void type_va(void *mem, va_list *ap) { for (int k = 0; k < 1000; k++) g += 3; *(int *)mem = va_arg(*ap, int); }
void use_printf(int c)
{
    register_printf_specifier('W', c ? conv_a : conv_b, conv_info);
    printf_function *f = old_conv;
    register_printf_function('V', f, old_info);
    register_printf_type(type_va);
}
void fork_prepare(void) { for (int k = 0; k < 1000; k++) g -= 3; }
void fork_parent(void) { for (int k = 0; k < 1000; k++) g ^= 3; }
void use_atfork(void) { pthread_atfork(fork_prepare, fork_parent, 0); }
ssize_t cookie_w1(void *c, const char *b, size_t n) { for (size_t k = 0; k < n; k++) g += b[k]; return n; }
ssize_t cookie_w2(void *c, const char *b, size_t n) { for (size_t k = 0; k < n; k++) g -= b[k]; return n; }
ssize_t cookie_w3(void *c, const char *b, size_t n) { for (size_t k = 0; k < n; k++) g ^= b[k]; return n; }
int cookie_close(void *c) { fill(100); return 0; }
static const cookie_io_functions_t cookie_const = {.write = cookie_w2};
static cookie_io_functions_t cookie_rw = {.write = cookie_w3};
FILE *open_local(void) { cookie_io_functions_t io = {.write = cookie_w1}; return fopencookie(0, "w", io); }
FILE *open_const(void) { return fopencookie(0, "w", cookie_const); }
FILE *open_copy(void) { cookie_io_functions_t io = cookie_rw; io.close = cookie_close; return fopencookie(0, "w", io); }
FILE *open_global(void) { return fopencookie(0, "w", cookie_rw); }

// An ordinary function keeps its points, also a callback of a libc function that holds no
// lock of its own (qsort's comparison).
// CHECK-DAG: ito-yield: plain: {{.*}}live_begin
// CHECK-DAG: ito-yield: by_value: {{.*}}live_begin
int plain(int n) { int s = 0; for (int i = 0; i < n; i++) s += i * g; return s; }
#include <stdlib.h>
int by_value(const void *a, const void *b) { for (int k = 0; k < 1000; k++) g++; return *(const int *)a - *(const int *)b; }
void use_qsort(int *v, size_t n) { qsort(v, n, sizeof *v, by_value); }
// CHECK-NOT: ito-yield: plain: skipped
// CHECK-NOT: ito-yield: by_value: skipped
