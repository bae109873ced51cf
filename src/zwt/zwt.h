/* zwt.h: internals of zero-wait threads shared by frame.c, fire.c and device.c.
 *
 * Who touches what:
 *  - An entry's sync word holds its count, or ITOI_ZS_QUEUED while it is ready and not yet
 *    running. Any thread decrements the count (CAS, never below 0); the continuation that
 *    takes the last count of an entry with code swaps 1 for ITOI_ZS_QUEUED in the same
 *    CAS, owns the firing and makes the entry ready as a stackless unit of the one
 *    scheduler (src/core/sched.c: the same queues, stealing, fairness and wake-ups as
 *    ULTs; there is no separate ready queue for ZWTs). The worker that runs it stores 0
 *    and runs the code (zwt_run in fire.c). A re-arm swaps a count in with a CAS that
 *    refuses ITOI_ZS_QUEUED (ITO_EBUSY), and continuations refuse it as they refuse 0.
 *    (Until 2026-12-03 `queued` was a field of its own, set after the count reached 0: a
 *    re-arm and a continuation from other threads in that gap made the entry ready a
 *    second time, so it ran more often than it was fired and the run queue broke, found
 *    by a misuse test re-arming and firing one entry from two threads.) One exception to
 *    "ready": a request's completion reaped by its worker's poller takes
 *    the ready entry (itoi_zwt_fire_looked) and the poller runs it at once on the same
 *    scheduler context (src/wsc/area.c, wsc_poll), counted as made ready and run; not
 *    while some worker is idle (it may steal the entry from the queue instead).
 *  - `waiter` is used only by entries without code: 0 (armed), FIRED, or the ULT that
 *    waits; firing exchanges it to FIRED, and a waiter installs itself with a CAS from
 *    the post action of its park, so exactly one side readies the ULT.
 *  - The definition (code, fan_in, mode, defined) changes only in ito_entry_set, which
 *    holds both words while it writes: the sync word as ITOI_ZS_SETTING (continuations
 *    refuse it as they refuse 0; re-arms and destroys wait it out) and the waiter word as
 *    ITOI_ZW_SETTING (a waiter or another set waits it out; a set finding a waiter is
 *    refused). So the last continuation reserves the firing (QUEUED) before it
 *    reads the code, and reads the definition that armed the count it took; a waiter
 *    that installed itself re-reads the code and leaves if the entry got code meanwhile.
 *    (Until 2026-12-04 a set stored 0 into `waiter` and wiped a waiter installed after
 *    its look, whose wait then never ended; and the run cleared QUEUED before it read
 *    the code, so a set in between had a worker call a NULL code: found by a misuse
 *    fuzzer setting entries from one thread while others waited on and fired them.)
 *    A set takes the waiter word first (a waiter there: ITO_EBUSY, nothing changed),
 *    then the sync word (queued: it gives the waiter word back, ITO_EBUSY): a set that
 *    fails has refused no continuation. Only the set changes a word it holds: a firing
 *    meanwhile leaves SETTING alone (the set's arming supersedes it).
 *  - A destroy holds every entry's waiter word before it ends the frame: 0 becomes DEAD0
 *    and FIRED DEAD1 (CAS each; a waiter or a set found: the words go back, ITO_EBUSY).
 *    A waiter's CAS from 0 then fails (ITO_EINVAL); a firing meanwhile turns DEAD0 into
 *    DEAD1 and a re-arm DEAD1 into DEAD0, so that a destroy that fails puts back what
 *    they did. A wait counts itself in the frame's `lookers` (itoi_frame_look) from
 *    before its first read of the entry to the end of its post action (and a timed
 *    wait's unlink likewise), and checks the frame is live in its handle's life after
 *    counting; a destroy, after its CAS of the magic to FREE, waits for the count to be
 *    0 (seq_cst on both sides: either it sees the look, or the look sees FREE and leaves).
 *    So no wait reads or CASes a word of a later life, which may be another entry's or
 *    the data area of a frame of another shape. (Until 2026-12-05 a destroy looked and
 *    then ended the frame: a waiter that had looked before the destroy installed itself
 *    in the next life's entry and waited for ever, test_zwt_wait_reuse; until 2026-12-06
 *    a waiter that had looked before a destroy still CASed the old entry's address in
 *    the next life, which could be data: test_zwt_wait_reshape.) The I/O path's
 *    continuations (a device's event, a request's completion: itoi_zwt_continue_io,
 *    itoi_zwt_fire_looked), which may come after a destroy the program was allowed to make
 *    (a request in flight), look too; one that reserves the firing of an entry with code
 *    re-reads the waiter word (seq_cst) and, finding DEAD, lets the destroy decide: FREE
 *    drops the firing, a word given back lets it go on; the destroy re-reads the sync word
 *    after each DEAD mark (seq_cst) and gives the word back (ITO_EBUSY) if it was queued
 *    meanwhile (fire.c io_fire_live; until 2026-12-06 such a completion took a count from
 *    the data of a frame created in the memory, or queued a ZWT of the destroyed frame:
 *    test_zwt_io_cont_race, found by an outside tester, h64g). A worker's poller keeps
 *    one look open across the completions of a reap, moved when the frame changes and
 *    closed before the continuations it took run (itoi_zlook_t, below; until 2026-12-07
 *    each completion looked on its own: two locked read-modify-writes per request, about
 *    a tenth of a Fig. 11 call's time on an Intel host). A waiter installs
 *    itself tagged ITOI_ZW_CHECKING while it re-reads the code (a set may have given the
 *    entry code after its first read; then it backs out), and everyone but a firing
 *    waits the tag out; a firing readies the ULT at once, and the post action then
 *    writes nothing into the ULT.
 *  - A code-less entry's firing is QUEUED only while the firing thread wakes the waiter
 *    (FIRED, unless a set holds the word) and then stores 0: a few instructions in libito, where no
 *    preemption switches. Re-arms, sets and destroys wait that out (itoi_zentry_settle)
 *    instead of saying ITO_EBUSY, and so see FIRED and 0 together: a firing can no longer
 *    mark FIRED after a re-arm that followed it (the next wait returned at once). A
 *    waiter that finds the waiter word held by a set waits that out too.
 *  - A code-less entry's firing ends by storing itoi_zs_fired(g) in the sync word, g
 *    counting its firings (`fgen`, written only by the firing thread while it holds
 *    QUEUED), not 0. A re-arm clears FIRED from the waiter word and then swaps its count
 *    in with a CAS from the word it looked at: a firing in between changes the word to a
 *    value it never had, so the CAS fails and the re-arm looks again (and clears that
 *    firing's FIRED). (Until 2026-12-04 a firing stored 0: another re-arm and a firing
 *    between the clear and the CAS brought the word back to the 0 seen, the CAS
 *    succeeded, and the entry was armed yet marked FIRED, so the next wait returned at
 *    once; found by a reviewer with an injected delay, test_zwt_rearm_hold. A first fix
 *    that had the re-arm hold the sync word while continuations waited let a foreign
 *    re-armer that the OS descheduled stall every worker continuing the entry for up to
 *    2 s; found by its reviewer.) Continuations refuse every value <= 0 as before. */
#ifndef ITO_ZWT_INTERNAL_H
#define ITO_ZWT_INTERNAL_H

#include "ito/zwt.h"
#include "../core/itoi.h"

#define ITOI_FRAME_LIVE 0x5a575446u /* "ZWTF" */
#define ITOI_FRAME_FREE 0xdeadf4a3u
#define ITOI_ZW_FIRED ((uintptr_t)1)
#define ITOI_ZS_QUEUED INT32_MIN /* sync word: ready, not yet running (see above) */
#define ITOI_ZS_SETTING (INT32_MIN + 1) /* sync word: ito_entry_set is changing the definition */
#define ITOI_ZW_SETTING ((uintptr_t)2) /* waiter word: ito_entry_set is changing the definition */
/* waiter word: ito_frame_destroy is ending the frame (see the top); the word was 0 (DEAD0)
 * or FIRED (DEAD1), which a destroy that fails puts back */
#define ITOI_ZW_DEAD0 ((uintptr_t)3)
#define ITOI_ZW_DEAD1 ((uintptr_t)4)
static inline bool itoi_zw_dead(uintptr_t v) { return v == ITOI_ZW_DEAD0 || v == ITOI_ZW_DEAD1; }
/* Whether a waiter word names a waiting ULT (not 0, FIRED, SETTING or DEAD), settled or
 * still checking (ITOI_ZW_CHECKING set). */
static inline bool itoi_zw_is_ult(uintptr_t v) { return v > ITOI_ZW_DEAD1; }
/* Low bit of a waiter word naming a ULT (ULTs are at least 16-byte aligned): the waiter
 * installed itself and is still checking its frame's life and the entry's code (fire.c,
 * wait_post, a few instructions on the scheduler context); it then clears the bit or
 * backs out. A set, destroy or wait waits that out: a waiter of a destroyed frame's old
 * life may be backing out of the next life's entry, which is no waiter of its own
 * (ito_entry_set on a frame just created there said ITO_EBUSY, 2 to 4 runs in 40 of
 * test_zwt_wait_reuse in the ASan tree). A firing readies the ULT at once. */
#define ITOI_ZW_CHECKING ((uintptr_t)1)
static inline bool itoi_zw_checking(uintptr_t v) { return itoi_zw_is_ult(v) && (v & ITOI_ZW_CHECKING); }
static inline itoi_ult_t *itoi_zw_ult(uintptr_t v) { return (itoi_ult_t *)(v & ~ITOI_ZW_CHECKING); }
/* sync word of a code-less entry just fired: its g-th firing (0 .. -(2^30 - 1), never a
 * count, QUEUED or SETTING), so that the words of two firings differ (see the top). */
static inline int32_t itoi_zs_fired(uint32_t g) { return -(int32_t)(g & 0x3fffffffu); }
/* An entry's definition (code, fan_in, mode, defined): written by ito_entry_set while other
 * threads may fire the entry (they read it without a lock): relaxed atomic accesses. */
#define ITOI_ZGET(field) __atomic_load_n(&(field), __ATOMIC_RELAXED)
#define ITOI_ZSET(field, v) __atomic_store_n(&(field), (v), __ATOMIC_RELAXED)
#define ITOI_NCLASSES 24

typedef struct itoi_zentry {
    itoi_unit_t u;              /* the ready-queue link; u.run = zwt_run */
    _Atomic int32_t sync;
    uint32_t fan_in;
    ito_zwt_fn code;
    _Atomic uint32_t lock;
    uint16_t mode;
    uint16_t defined;
    int32_t index;
    uint32_t fgen;              /* firings of a code-less entry (see the top) */
    _Atomic uintptr_t waiter;
    _Atomic uint64_t value;
    struct ito_frame *frame;
} itoi_zentry_t;

struct ito_frame {
    _Atomic uint32_t magic;
    _Atomic uint32_t gen;       /* moves at every ito_frame_create: the handle's tag */
    _Atomic uintptr_t tag;      /* while live: its handle ^ itoi_arena.key; else 0 */
    /* Waits between their look and the end of their post action, or a timed wait's
     * unlink (fire.c, itoi_frame_look): the words they may still CAS are this life's. A
     * destroy waits for 0 after it marks the frame FREE (frame.c). Kept across lives. */
    _Atomic uint32_t lookers;
    uint32_t nentries;
    uint32_t size_class;        /* pool class, or ITOI_NCLASSES when not pooled */
    size_t cap;                 /* an unpooled frame's bytes (whole arena chunks), kept across lives */
    size_t data_size;
    _Atomic(unsigned char *) data; /* relaxed: a foreign ito_frame_data may race a new life of the slot */
    struct ito_frame *next_free;
    itoi_zentry_t e[];
};

/* Per-worker ZWT state: the frame pools. */
typedef struct itoi_zworker {
    _Alignas(ITOI_CACHELINE) struct ito_frame *free[ITOI_NCLASSES];
} itoi_zworker_t;

int itoi_zwt_setup(void);                   /* once per ito_init, on first use */
extern itoi_zworker_t *itoi_zws;            /* one per worker (frame.c), set up before any ZWT runs */
static inline itoi_zworker_t *itoi_zwt_worker(itoi_worker_t *w) { return &itoi_zws[w->index]; }
void itoi_zwt_run(itoi_worker_t *w, itoi_unit_t *u); /* the unit's run: the entry's code */
/* ito_continue_value for the runtime's own I/O, which continues as the kernel (the I/O
 * controller): a device's event, and the completion of a split-phase request
 * (itoi_zwt_fire_looked's too), whoever reaps it, since its poster's mode was checked at the
 * post (a kernel-mode continuation reaped by the poller, which counted as a user thread,
 * was refused and dropped; found by an outside tester, 2026-12-05). */
int itoi_zwt_continue_io(ito_frame_t *f, int entry, uint64_t value);
/* The mode of the caller: a running ZWT's own, else user (ULTs, foreign threads). */
int itoi_zwt_caller_mode(itoi_worker_t *w);
/* The sync word once no code-less firing and no set is under way (see the top): QUEUED
 * then means an entry with code, ready and not yet running. */
static inline int32_t itoi_zentry_settle(itoi_zentry_t *e)
{
    int32_t s;
    while ((s = atomic_load_explicit(&e->sync, memory_order_acquire)) == ITOI_ZS_SETTING ||
           (s == ITOI_ZS_QUEUED && !ITOI_ZGET(e->code)))
        itoi_spin_pause();
    return s;
}

/* The waiter word once no set holds it and no waiter is checking. */
static inline uintptr_t itoi_zentry_waiter(itoi_zentry_t *e)
{
    uintptr_t v;
    while ((v = atomic_load_explicit(&e->waiter, memory_order_acquire)) == ITOI_ZW_SETTING || itoi_zw_checking(v))
        itoi_spin_pause();
    return v;
}

/* Whether e is ready and not yet running. */
static inline bool itoi_zentry_queued(itoi_zentry_t *e) { return itoi_zentry_settle(e) == ITOI_ZS_QUEUED; }

/* Frame handles. The ito_frame_t * the API hands out is the frame's address with the low
 * 16 bits of its generation in the top 16 bits (user-space addresses use 47): a handle
 * of a frame that was destroyed and created again at the same address is refused. The
 * address must be where a frame starts in the handle arena (a forged one is refused
 * before it is read). Inside
 * the runtime frames are plain pointers; a handle is never dereferenced before
 * itoi_frame_get. */
#define ITOI_FRAME_PTR_BITS ITOI_HANDLE_PTR_BITS /* the layout of thread handles */
static inline ito_frame_t *itoi_frame_handle(struct ito_frame *f)
{
    uintptr_t g = atomic_load_explicit(&f->gen, memory_order_relaxed) & 0xffffu;
    return (ito_frame_t *)((uintptr_t)f | (g << ITOI_FRAME_PTR_BITS));
}

/* Whether the frame f is still in the life the handle h names (its generation). */
static inline bool itoi_frame_same_life(struct ito_frame *f, ito_frame_t *h)
{
    return (atomic_load_explicit(&f->gen, memory_order_acquire) & 0xffffu) == (uintptr_t)h >> ITOI_FRAME_PTR_BITS;
}

/* The live frame a handle names, or NULL (NULL, destroyed, another life of the frame). */
static inline struct ito_frame *itoi_frame_get(ito_frame_t *h)
{
#if defined(ITOI_TSAN)
    /* Only where a frame starts (a big frame at its first chunk's start, a small one at a
     * multiple of its size): a forged handle into a live frame's entries or data would
     * load a word written unsynchronized, a ThreadSanitizer report (see handle_tagged in
     * thread.c). */
    size_t in = 0;
    unsigned k = itoi_arena_kind((const void *)((uintptr_t)h & (((uintptr_t)1 << ITOI_FRAME_PTR_BITS) - 1)), &in);
    if (k == ITOI_ARENA_FRAME_BIG ? in != 0
                                  : (k <= ITOI_ARENA_FRAME_LOG || k > ITOI_ARENA_FRAME_LOG + 16 ||
                                     (in & (((size_t)1 << (k - ITOI_ARENA_FRAME_LOG)) - 1)) != 0))
        return NULL;
#endif
    return itoi_arena_check((uintptr_t)h, offsetof(struct ito_frame, tag)); /* the keyed tag */
}

/* A look at the frame of handle h (a wait, or a timed wait's unlink): counted in
 * `lookers`, then the frame must still be live in h's life; the destroy waits for the
 * count after it marks the frame FREE (frame.c), so while the look lasts the frame's
 * words are h's life's. Both sides seq_cst: either the destroy sees the count, or the
 * look sees FREE (or the next life's generation) and ends at once. Returns whether the
 * frame is live in h's life; the look must be ended (itoi_frame_look_end) either way. */
static inline bool itoi_frame_look(struct ito_frame *f, ito_frame_t *h)
{
    atomic_fetch_add(&f->lookers, 1);
    return atomic_load(&f->magic) == ITOI_FRAME_LIVE && itoi_frame_same_life(f, h);
}
static inline void itoi_frame_look_end(struct ito_frame *f)
{
    atomic_fetch_sub_explicit(&f->lookers, 1, memory_order_release);
}

/* The entry of the live frame f (already validated, e.g. in a look), or NULL with *rc set
 * (ITO_ERANGE). */
static inline itoi_zentry_t *itoi_zwt_entry_of(struct ito_frame *f, int entry, int *rc)
{
    if (ITOI_UNLIKELY(entry < 0 || (uint32_t)entry >= __atomic_load_n(&f->nentries, __ATOMIC_RELAXED))) {
        *rc = ITO_ERANGE;
        return NULL;
    }
    return &f->e[entry];
}

/* Validate (frame handle, entry): the entry, or NULL with *rc set. */
static inline itoi_zentry_t *itoi_zwt_entry(ito_frame_t *h, int entry, int *rc)
{
    struct ito_frame *f = itoi_frame_get(h);
    if (ITOI_UNLIKELY(!f)) {
        *rc = ITO_EINVAL;
        return NULL;
    }
    return itoi_zwt_entry_of(f, entry, rc);
}

/* A look (itoi_frame_look) that a worker's poller keeps open across the completions of one
 * reap (src/wsc/area.c, wsc_poll): consecutive completions that continue entries of the
 * same frame (a bucket's requests usually do) check the handle and count the look once,
 * not once each (two locked read-modify-writes and the handle's check per completion).
 * No program code runs while it is open (the continuations the poller takes run after
 * the reap, once it is closed), so a destroy waits at most for the rest of the reap; what
 * a completion sees inside it is what it would see in a look of its own that a destroy
 * overlaps (io_fire_live decides). `h` NULL: none open. */
typedef struct itoi_zlook {
    ito_frame_t *h;
    struct ito_frame *fr;
} itoi_zlook_t;
/* ito_continue_value as the I/O path's (itoi_zwt_continue_io), from worker w's poller
 * inside the look lk (opened, or moved to f's frame, as needed). With `take`, an entry with
 * code that this continuation makes ready is marked queued and returned instead (the
 * poller runs it with itoi_unit_run_now); else it is made ready on w. NULL otherwise (not
 * ready yet, a waiting ULT woken, or refused as ito_continue_value would refuse it). */
itoi_unit_t *itoi_zwt_fire_looked(itoi_worker_t *w, itoi_zlook_t *lk, ito_frame_t *f, int entry, uint64_t value,
                                  bool take);
/* Close lk's look, if open (the end of the reap). */
static inline void itoi_zwt_look_close(itoi_zlook_t *lk)
{
    if (lk->h) {
        itoi_frame_look_end(lk->fr);
        lk->h = NULL;
    }
}

#endif
