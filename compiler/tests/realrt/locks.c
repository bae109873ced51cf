/* locks.c: a loop that runs under a pthread mutex gets no yield point (compiler/plugin/
 * Safety.h, lockOpenBlocks); the loop after the unlock keeps its points. Built with the
 * plugin; locks_main.c (without it) runs walk() in 8 ULTs on 2 workers under FLAG
 * preemption. A point inside the locked loop switched a ULT out holding the mutex, and the
 * next ULT that took it blocked its worker's kernel thread: every run hung (PCRE2's JIT
 * allocator, sljit_malloc_exec, does this; found by an outside tester, h67c, 2026-12-06). */
#include <pthread.h>

struct node { struct node *next; long size; };
extern struct node *locks_list;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

long walk(long want)
{
    long s = 0;
    pthread_mutex_lock(&m);
    for (struct node *n = locks_list; n; n = n->next) {
        s += n->size;
        if (n->size == want) break;
    }
    pthread_mutex_unlock(&m);
    /* unlocked: a loop with points, so that the ULTs do switch */
    for (struct node *n = locks_list; n; n = n->next) s ^= n->size & 1;
    return s;
}
