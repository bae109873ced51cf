/* preempt_int.h: internals shared by preempt.c (timers, the handler, regions) and
 * gang.c (groups and gang scheduling). */
#ifndef ITO_PREEMPT_INTERNAL_H
#define ITO_PREEMPT_INTERNAL_H

#include <signal.h>
#include <time.h>

#include "ito/preempt.h"
#include "../core/itoi.h"

typedef struct itoi_pstats {
    _Atomic uint64_t ticks, preemptions, deferred, delayed, delay_ns, forced;
} itoi_pstats_t;

/* Per worker (w->slot[ITOI_WSLOT_PREEMPT]); touched by its worker only, signal handler
 * included, except the statistics (read by anyone). */
typedef struct itoi_pworker {
    timer_t timer;
    int armed;
    int flag_set;               /* FLAG mode: this worker's last tick set ito_coop_flag */
    struct itoi_group *flag_group; /* FLAG mode: the group of the ULT running at that tick, or NULL */
    uint32_t flag_gen;          /* FLAG mode: flag_group's generation (itoi_group_t.gen) then */
    itoi_pstats_t st;
    itoi_queue_t parked;        /* gang scheduling: ULTs whose group's turn it is not */
    uint64_t gang_seen;         /* the group epoch the parked ULTs were set aside for */
    uint64_t nvcsw;             /* the thread's voluntary switches at its last tick inside a region (preempt.c) */
} itoi_pworker_t;

static inline itoi_pworker_t *itoi_pworker(itoi_worker_t *w)
{
    /* acquire: pairs with the release stores of ito_preempt_enable/disable, which run on
     * another thread than the handler that reads the slot */
    return (itoi_pworker_t *)__atomic_load_n(&w->slot[ITOI_WSLOT_PREEMPT], __ATOMIC_ACQUIRE);
}

/* A ULT's preemption state, in its slot words (src/core/itoi.h, which defines the region
 * depth ITOI_PSAFE): written by the ULT itself and read by the signal handler on the same
 * worker (volatile: the handler interrupts the ULT, no atomics needed); the group is set
 * by ito_group_add. */
#define ITOI_PSAFE_PENDING(t) (*(volatile uintptr_t *)&(t)->slot[ITOI_USLOT_PSAFE_PENDING].w) /* 0, or the thread's CPU ns | 1 at the last delayed tick */
#define ITOI_PSAFE_SINCE(t) ((t)->slot[ITOI_USLOT_PSAFE_SINCE].w) /* wall ns of the first delayed tick */
#define ITOI_PSAFE_RAN(t) ((t)->slot[ITOI_USLOT_PSAFE_RAN].w) /* CPU ns the region ran since (preempt.c) */

/* The bound of a delayed switch (preempt.c's psafe_delay_at, at each tick inside a
 * region; cpu: the worker thread's CPU clock). Returns 1 while the switch may wait, 0 once
 * the region ran `bound` ns of CPU time. Each tick adds the CPU time since the previous
 * one (PENDING holds that reading, | 1: never 0), at most one quantum, into RAN:
 *  - the thread's CPU clock also advances while the thread runs nothing of the region:
 *    on a KVM guest it counts the time the hypervisor has the virtual CPU preempted as
 *    the running thread's, and no tick comes meanwhile (on the 2-vCPU guests we test on,
 *    507 us passed so in a critical section of 3 us, and the first tick after it forced
 *    the holder of a pthread mutex out: test_preempt_region part 5 hung 2 runs in 400);
 *    a long stay in the kernel does the same. Capped, such a gap counts one quantum, and
 *    forcing takes at least bound / quantum ticks that found the region running. A
 *    wall-time bound (before) forced short regions whenever the OS descheduled them, and
 *    a tick count is no better: after a descheduling two expiries come microseconds
 *    apart;
 *  - a region that truly runs gets a tick per quantum of wall time, each adding the CPU
 *    share it got: forced after `bound` of CPU time, later when the thread shares a CPU;
 *  - a ULT that moved to another worker inside its region (it blocked there) reads
 *    another thread's clock: a jump up counts at most a quantum, one down starts afresh;
 *  - a tick that finds the ULT waiting in a system call (in_kernel) starts afresh too: a
 *    ULT that waited long for a pthread mutex had used its bound up on the ticks' own
 *    handling by the time it got the lock, and the next tick forced it out holding it.
 *    Waiting means blocked (a voluntary switch since the previous tick), not merely just
 *    back from a call: a call that the kernel only descheduled the thread at is no wait
 *    (preempt.c, waited_in_kernel).
 * The bound is on CPU time spent running the region since it last waited. */
static inline int itoi_psafe_count(itoi_ult_t *t, uint64_t cpu, int in_kernel, uint64_t quantum, uint64_t bound)
{
    uintptr_t pending = ITOI_PSAFE_PENDING(t), last = pending & ~(uintptr_t)1;
    ITOI_PSAFE_PENDING(t) = (uintptr_t)cpu | 1u;
    if (!pending || cpu < last || in_kernel) {
        ITOI_PSAFE_RAN(t) = 0;
        return 1;
    }
    uint64_t ran = cpu - last;
    ITOI_PSAFE_RAN(t) += ran < quantum ? ran : quantum;
    return ITOI_PSAFE_RAN(t) < bound;
}

/* Atomics: ito_group_add may set it from another thread while t runs and its worker's
 * pick filter and tick read it (test_group_add_running). The slot counts only while the
 * state word has ITOI_ST_MEMBER (itoi.h): group_add stores it before the CAS that sets
 * the bit (acquire here: that store is seen), and may store it into a descriptor reused
 * meanwhile, whose bit is then clear (gang.c, group_add). */
static inline struct itoi_group *itoi_group_of(const itoi_ult_t *t)
{
    if (!(atomic_load_explicit(&((itoi_ult_t *)t)->state, memory_order_acquire) & ITOI_ST_MEMBER)) return NULL;
    return (struct itoi_group *)__atomic_load_n(&t->slot[ITOI_USLOT_GROUP].p, __ATOMIC_RELAXED);
}

#define ITOI_MAX_GROUPS 64
typedef struct itoi_group {
    _Atomic int members;
    _Atomic int turn_delayed;   /* its turn was extended for a preemption-safe region (written under turn_lock, read without) */
    uint64_t delay_since;       /* when the turn should have ended (ns) */
    int turn_ticks;             /* the ticks that extended it (under turn_lock): the extension is
                                 * charged at most a quantum per tick (gang.c, advance) */
    _Atomic uint64_t debt_ns;   /* time to sit out: the compensation of delayed switches */
    itoi_pstats_t st;
    int slot;
    _Atomic uint32_t gen;       /* bumped when the group ends (destroy, finalize): the slot's next
                                 * group sits at the same address (the table is static), and a
                                 * tick that kept a pointer tells them apart by it */
} itoi_group_t;

typedef struct itoi_preempt {
    int on, mode, gang, spare_main;
    uint64_t quantum_ns, max_delay_ns; /* a region's bound: CPU time (a gang turn's: wall time) */
    uintptr_t exe_lo, exe_hi;
    uintptr_t vdso_lo, vdso_hi; /* the kernel's vDSO: lock-free code, safe too (preempt.c) */
    uint64_t base_mask; /* signals 1..64 the workers block by themselves (ito_preempt_enable's caller) */
    /* The per-worker records, from the first enable until finalize: written under
     * preempt.c's pre_lock (a release store), read plainly under it, and without it only
     * through itoi_pre_records (gang.c: the parked queues' keepers on any worker). */
    itoi_pworker_t *pw;
    struct sigaction old_sa;
    itoi_pstats_t total;
} itoi_preempt_t;

extern itoi_preempt_t itoi_pre;
/* The settings a tick reads: written by enable (under its lock) while a late tick of an
 * earlier enable may still be in the handler on a worker, so both sides use atomics. */
#define ITOI_PRE_GET(field) __atomic_load_n(&itoi_pre.field, __ATOMIC_RELAXED)
#define ITOI_PRE_SET(field, v) __atomic_store_n(&itoi_pre.field, (v), __ATOMIC_RELAXED)

/* The per-worker records without pre_lock: NULL before the first enable. acquire: pairs
 * with the release store that publishes them, so their contents are seen initialised. */
static inline itoi_pworker_t *itoi_pre_records(void) { return __atomic_load_n(&itoi_pre.pw, __ATOMIC_ACQUIRE); }

void itoi_preempt_fini(void);
void itoi_preempt_add(itoi_pstats_t *to, itoi_pstats_t *from);
/* Gang scheduling's hooks (its scheduler hooks and the groups' clean-up), registered once
 * per process (itoi_mech_register): ITO_ENOMEM when a table is full. Not under pre_lock
 * (it adds a fini hook, and teardown holds the finalizers' lock while it takes pre_lock
 * in preemption's). */
int itoi_gang_register(void);
void itoi_gang_start(void); /* under pre_lock, after itoi_gang_register */
void itoi_gang_stop(void);
void itoi_gang_tick(void);      /* worker 0's timer: the next group's turn */
void itoi_gang_region_ended(itoi_group_t *g); /* from ito_psafe_end: end a delayed turn now */

/* Gang scheduling's state (gang.c): the group whose turn it is (NULL: gang scheduling is
 * off) and a counter bumped at every change of turn. */
extern _Atomic(void *) itoi_gang_group;
extern _Atomic uint64_t itoi_gang_epoch;

#endif
