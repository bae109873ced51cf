/* ult_barrier.h: a reusable barrier for ULTs (ito mutex + condition variable), the
 * wl_hooks.barrier of the real run.  Waiting parks the ULT, so its worker runs other ULTs. */
#ifndef PSR_ULT_BARRIER_H
#define PSR_ULT_BARRIER_H

#include <ito/sync.h>

typedef struct psr_barrier {
    ito_mutex_t m;
    ito_cond_t c;
    int n, count;
    unsigned long gen;
} psr_barrier;

int psr_barrier_init(psr_barrier *b, int n);   /* ito error code */
int psr_barrier_wait(psr_barrier *b);          /* from a ULT; ito error code */
int psr_barrier_destroy(psr_barrier *b);

#endif
