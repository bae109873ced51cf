// No point in the blocks where a function holds a kernel lock it took itself: a ULT
// switched out there keeps the lock (a pthread mutex, rwlock or spinlock, a C11 mtx, a
// stdio stream's lock), and the next ULT that takes it blocks its worker's kernel thread
// for ever; a recursive lock is taken again by the other ULTs of the same worker, and its
// owner, resumed on another worker, cannot release it. PCRE2 10.45 built by ito-cc
// (--ito-variant=stub --ito-policy=bound, the recommended build) hung 2 runs of 3 with
// its JIT in 8 ULTs on 2 workers under FLAG preemption: sljit_malloc_exec walks its free
// list in a loop under pthread_mutex_lock(&allocator_lock), the loop got a check, and a
// ULT switched out there left the other worker blocked on the mutex (found by an outside
// tester, h67c, 2026-12-06). Loops before a lock and after its unlock keep their points;
// so do functions that take no lock. Both optimisation levels, every placing policy.
// RUN: %clang -O0 -fno-discard-value-names -c %s -o %t.o -Xclang -load -Xclang %plugin \
// RUN:   -fpass-plugin=%plugin -mllvm -ito-yield-report 2> %t.rep
// RUN: %FileCheck %s --check-prefixes=CHECK,O0 < %t.rep
// RUN: %clang -O2 -fno-discard-value-names -c %s -o %t2.o -Xclang -load -Xclang %plugin \
// RUN:   -fpass-plugin=%plugin -mllvm -ito-yield-report 2> %t2.rep
// RUN: %FileCheck %s < %t2.rep
// RUN: %clang -O2 -fno-discard-value-names -c %s -o %t3.o -Xclang -load -Xclang %plugin \
// RUN:   -fpass-plugin=%plugin -mllvm -ito-yield-report -mllvm -ito-yield-policy=bound \
// RUN:   -mllvm -ito-yield-bound=50 2> %t3.rep
// RUN: %FileCheck %s < %t3.rep
// RUN: %clang -O2 -fno-discard-value-names -c %s -o %t4.o -Xclang -load -Xclang %plugin \
// RUN:   -fpass-plugin=%plugin -mllvm -ito-yield-report -mllvm -ito-yield-policy=loops 2> %t4.rep
// RUN: %FileCheck %s < %t4.rep
#include <pthread.h>
#include <stdio.h>
#include <threads.h>

struct node { struct node *next; long size; };
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static pthread_spinlock_t sp;
static mtx_t cm;
static struct node *free_list;
volatile long g;

// No point in the loops that run under the lock (blocks for.*, while.*), nor in the
// blocks that take it (entry): a point may remain where every lock has been released
// (the return block).
// CHECK-NOT: ito-yield: {{locked_walk|read_walk|spin_walk|c11_walk|stream_walk|try_walk}}: {{entry|for|while|if}}
// Every path after the lock runs until an unlock (the early return unlocks too).
struct node *locked_walk(long size)
{
    pthread_mutex_lock(&m);
    for (struct node *n = free_list; n; n = n->next)
        if (n->size >= size) {
            pthread_mutex_unlock(&m);
            return n;
        }
    pthread_mutex_unlock(&m);
    return 0;
}
long read_walk(void)
{
    long s = 0;
    pthread_rwlock_rdlock(&rw);
    for (struct node *n = free_list; n; n = n->next) s += n->size;
    pthread_rwlock_unlock(&rw);
    return s;
}
long spin_walk(void)
{
    long s = 0;
    pthread_spin_lock(&sp);
    for (struct node *n = free_list; n; n = n->next) s ^= n->size;
    pthread_spin_unlock(&sp);
    return s;
}
long c11_walk(void)
{
    long s = 0;
    mtx_lock(&cm);
    for (struct node *n = free_list; n; n = n->next) s -= n->size;
    mtx_unlock(&cm);
    return s;
}
void stream_walk(FILE *f, int n)
{
    flockfile(f);
    for (int i = 0; i < n; i++) putc_unlocked('x', f);
    funlockfile(f);
}
// A trylock counts as taken.
long try_walk(void)
{
    long s = 0;
    if (pthread_mutex_trylock(&m) == 0) {
        for (struct node *n = free_list; n; n = n->next) s += n->size * 3;
        pthread_mutex_unlock(&m);
    }
    return s;
}

// The loops before the lock and after the unlock keep their points (the report names
// the blocks; at -O0 the loop blocks' names say which loop).
// CHECK-DAG: ito-yield: around: {{.*}}live_begin
// O0-DAG: ito-yield: around: for.cond{{ }}{{.*}}live_begin
// O0-DAG: ito-yield: around: for.cond{{[0-9]+}}{{ }}{{.*}}live_begin
// O0-NOT: ito-yield: around: for.cond{{[0-9]*}}.locked
long around(int n)
{
    long s = 0;
    for (int i = 0; i < n; i++) s += g;
    pthread_mutex_lock(&m);
    s += free_list ? free_list->size : 0;
    pthread_mutex_unlock(&m);
    for (int i = 0; i < n; i++) s ^= g;
    return s;
}

// An ordinary function keeps its points.
// CHECK-DAG: ito-yield: plain: {{.*}}live_begin
long plain(int n) { long s = 0; for (int i = 0; i < n; i++) s += i * g; return s; }
