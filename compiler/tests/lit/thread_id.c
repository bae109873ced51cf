// A thread's identity is taken anew after every call where the ULT may have moved to
// another kernel thread (ThreadAddr.h): glibc declares pthread_self (and thrd_current)
// const, so without the plugin -O2 merges the two calls around hop() and folds the
// comparison to false, and a ULT that moved in hop() never sees it (found by an outside
// tester, 2026-12-04). With the plugin both calls stay, at every level and for every
// variant; two pthread_self calls with nothing between no longer merge (a call-free loop
// kept one before it: count_mine), two __ctype_b_loc calls do. -ito-yield-retake-tls=false
// keeps the folding (what the plugin did before).
// RUN: %clang -O2 -S -emit-llvm %s -o - | %FileCheck %s --check-prefix=PLAIN
// RUN: %clang -O1 -S -emit-llvm %s -o - -Xclang -load -Xclang %plugin -fpass-plugin=%plugin \
// RUN:   | %FileCheck %s
// RUN: %clang -O2 -S -emit-llvm %s -o - -Xclang -load -Xclang %plugin -fpass-plugin=%plugin \
// RUN:   | %FileCheck %s
// RUN: %clang -O3 -S -emit-llvm %s -o - -Xclang -load -Xclang %plugin -fpass-plugin=%plugin \
// RUN:   -mllvm -ito-yield-policy=bound | %FileCheck %s
// RUN: %clang -O2 -S -emit-llvm %s -o - -Xclang -load -Xclang %plugin -fpass-plugin=%plugin \
// RUN:   -mllvm -ito-yield-retake-tls=false | %FileCheck %s --check-prefix=PLAIN
// RUN: %itocc --ito-variant=stub --ito-tls=local-exec --ito-policy=bound -O2 -S %s -o - \
// RUN:   | %FileCheck %s --check-prefix=ASM
#include <ctype.h>
#include <pthread.h>
#include <threads.h>

void hop(void);

// CHECK-LABEL: define {{.*}}i32 @moved(
// CHECK: call i64 @pthread_self()
// CHECK: call void @hop()
// CHECK: call i64 @pthread_self()
// CHECK: icmp
// PLAIN-LABEL: define {{.*}}i32 @moved(
// PLAIN-NOT: pthread_self
// PLAIN: ret i32 0
// ASM-LABEL: moved:
// ASM: callq pthread_self@PLT
// ASM: callq hop@PLT
// ASM: callq pthread_self@PLT
int moved(void)
{
    pthread_t a = pthread_self();
    hop();
    return pthread_self() != a;
}

// CHECK-LABEL: define {{.*}}i32 @moved_c11(
// CHECK: call i64 @thrd_current()
// CHECK: call void @hop()
// CHECK: call i64 @thrd_current()
int moved_c11(void)
{
    thrd_t a = thrd_current();
    hop();
    return thrd_current() != a;
}

// A loop with no call in it: without the plugin -O2 calls pthread_self once and turns the
// count into `eq ? n : 0`; the plugin puts yield points into the loop, so a ULT may move
// there, and the call stays in the loop, after the loop's yield point (h63d's F4, found by
// an outside tester, 2026-12-06; compiler.tlsmove's self_loop runs it).
// CHECK-LABEL: define {{.*}}i64 @count_mine(
// CHECK-NOT: select
// CHECK: call i64 @pthread_self()
// CHECK-NOT: select
// CHECK: br i1 {{.*}}!llvm.loop
// CHECK: }
// PLAIN-LABEL: define {{.*}}i64 @count_mine(
// PLAIN: call i64 @pthread_self()
// PLAIN: select i1
long count_mine(long n, pthread_t owner)
{
    long hits = 0;
    for (long i = 0; i < n; i++)
        if (pthread_equal(pthread_self(), owner)) hits++;
    return hits;
}

// The <ctype.h> slot is only read: with no call between, one look-up is enough (its old
// slot after a move holds the same tables: ThreadAddr.h).
// CHECK-LABEL: define {{.*}}i32 @same(
// CHECK: call ptr @__ctype_b_loc()
// CHECK-NOT: call ptr @__ctype_b_loc()
// CHECK: ret
int same(int c, int d)
{
    return isalpha(c) + isdigit(d);
}

// The <ctype.h> tables' slot (a thread's, for uselocale): looked up again after hop().
// CHECK-LABEL: define {{.*}}i32 @ctype_moved(
// CHECK: call ptr @__ctype_b_loc()
// CHECK: call void @hop()
// CHECK: call ptr @__ctype_b_loc()
// PLAIN-LABEL: define {{.*}}i32 @ctype_moved(
// PLAIN-NOT: __ctype_b_loc
// PLAIN: ret i32 0
int ctype_moved(void)
{
    const unsigned short **a = __ctype_b_loc();
    hop();
    return __ctype_b_loc() != a;
}
