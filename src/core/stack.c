/* stack.c: ULT stacks, carved from large regions, with guards below them; and the
 * SIGSEGV handler that turns a guard hit into a report naming the thread.
 *
 * Stacks come in size classes (powers of two from 8 KiB to 1 GiB; a request is rounded
 * up). A class maps regions (one mmap each, MAP_NORESERVE: memory is committed only
 * where a stack is touched) that hold a growing number of slots: 16 in the first region,
 * twice as many in each next one, up to 4096 or 1 GiB. A slot is [guard][stack], the
 * itoi_stack_t descriptor at the top of the stack. So a stack costs no kernel mapping of
 * its own: 10^5 or 10^6 stacks live in a few dozen mappings, far below vm.max_map_count.
 *
 * Guards: 64 KiB below every stack of 64 KiB or more (a frame that jumps a page or two
 * still lands in it), 16 KiB below smaller ones; installed with MADV_GUARD_INSTALL
 * (Linux 6.13: the guard lives in the page tables, so it splits no mapping), else with
 * mprotect(PROT_NONE) while the process has mappings to spare (each costs two), else not
 * at all: such a stack gets a canary word at its lowest address, checked when its ULT
 * ends (ito: fatal: stack overflow detected ...). Guards are installed when a slot is
 * first carved, so a stack reused from a pool costs no system call. Frames larger than
 * the guard are caught by compiling with -fstack-clash-protection (the flags `pkg-config
 * --cflags ito` and ito-cc give), which probes every page a frame allocates.
 *
 * Pools: a worker keeps the free stacks of the default class in its own list (owner
 * only, the hot path of create and exit: no lock); past POOL_HIGH a batch moves to the
 * class's global list. Other classes use the global list, under the class's lock.
 *
 * Credits (ULTs get their stacks lazily, when they first run, so that threads created
 * in numbers and run one after another share a few stacks and never touch the others'
 * memory): a ULT takes a stack credit when it is created and gives it back when it ends.
 * A class counts the credits out (`committed`) against the slots its regions hold
 * (`capacity`), and maps a region when they would exceed it; a creation for which no
 * region can be mapped fails at once with ITO_ENOMEM. Workers take credits from their
 * class in batches (owner-only counts, w->stack_credits), so creation and exit touch no
 * shared line on their fast paths. Since credits never exceed the slots mapped, the
 * stack a ULT attaches when it first runs exists (free in some pool, or uncarved; a
 * worker that finds neither in reach maps one more region, and when the kernel refuses it,
 * asks the other workers to give their own pools back: others_give_back). A creation that
 * finds the class out of credits, with the kernel refusing a region, fails, and asks the
 * other workers to give back the credits they hold (those of ULTs that ended there), so
 * that the creations after it find them. Every region is in its class's list, so
 * ito_finalize unmaps them all, wherever their stacks are. */
#define _GNU_SOURCE
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/sysinfo.h>
#include <ucontext.h>
#include <unistd.h>

#include "itoi.h"
#include "sanitizer.h"

/* Valgrind: memcheck takes a change of the stack pointer by less than 2 MB for a frame
 * pushed or popped on one stack, and paints what lies between as undefined or
 * inaccessible: a switch between two ULT stacks of a region (64 KiB apart) made it report
 * thousands of false errors in every program that yields (found by an outside tester,
 * h68d, 2026-12-06). So every stack is registered with valgrind when it is carved
 * (VALGRIND_STACK_REGISTER: a switch into it is a switch, not a frame) and deregistered
 * before its region is unmapped. The client requests are a few no-op instructions when
 * the program does not run under valgrind; without <valgrind/valgrind.h> at build time
 * they are left out. */
#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>) && !defined(ITOI_ASAN) && !defined(ITOI_TSAN)
#include <valgrind/valgrind.h>
#define ITOI_VALGRIND 1
#endif
#endif
#define VG_ID_SHIFT 16 /* the registration's id + 1 (0: none), above the class and the unguarded bit */

#ifndef MADV_GUARD_INSTALL
#define MADV_GUARD_INSTALL 102
#endif

#define MIN_SHIFT 13                /* 8 KiB */
#define NCLASS 18                   /* 8 KiB .. 1 GiB */
#define FIRST_SLOTS 16
#define MAX_SLOTS 4096
#define MAX_REGION ((size_t)1 << 30)
#define POOL_HIGH 256
#define POOL_BATCH 64
#define CANARY 0x17051c0ffee1705ull

typedef struct region {
    struct region *next;
    char *map;
    size_t bytes;
    char *carve;                    /* its next uncarved slot */
    size_t uncarved;                /* slots left to carve */
} region_t;

typedef struct klass {
    itoi_spinlock_t lock;
    size_t capacity;                /* slots of all regions */
    size_t committed;               /* credits handed out to workers */
    region_t *regions;              /* every region of the class, newest first (unmapped at
                                     * finalize); those with uncarved slots come first */
    size_t uncarved;                /* uncarved slots of all regions */
    size_t next_slots;              /* slots of the next region */
    itoi_stack_t *free;             /* global free list */
    size_t nfree;
} klass_t;

static klass_t classes[NCLASS];
static _Atomic uint64_t n_carved, n_regions;
static _Atomic int guard_mode;      /* 0 untried, 1 madvise, 2 mprotect, 3 none */
static _Atomic long mprotect_budget;

static inline int class_of(size_t size)
{
    int c = 0;
    while (((size_t)1 << (MIN_SHIFT + c)) < size && c < NCLASS - 1) c++;
    return c;
}

static inline size_t class_bytes(int c) { return (size_t)1 << (MIN_SHIFT + c); }
static inline size_t guard_bytes(int c) { return class_bytes(c) >= 65536 ? 65536 : 16384; }
/* A slot of class c in a region: its guard at the low end, the stack above it, the
 * stack's descriptor at the top (carve makes it, itoi_stack_free_all reads it back). */
static inline size_t slot_bytes(int c) { return guard_bytes(c) + class_bytes(c); }
static inline itoi_stack_t *slot_stack(char *slot, int c)
{
    return (itoi_stack_t *)(slot + slot_bytes(c) - sizeof(itoi_stack_t));
}

size_t itoi_stack_round(size_t size) { return class_bytes(class_of(size)); }

/* Whether the program asked for executable stacks: PT_GNU_STACK with PF_X in the
 * executable or a library loaded at the first look, or an executable without that header
 * (glibc then makes every thread's stack executable, so code placed on a stack runs in a
 * pthread: a GCC nested function's trampoline, which the compiler asks the linker to
 * mark so). ULT stacks follow, or such a call in a ULT crashed, reported as a stack
 * overflow (found by an outside tester, h67b, 2026-12-06; tests/test_stack_exec.c). A
 * library loaded later that asks for it changes nothing here (known limit). */
typedef struct {
    bool exec;  /* an object asked for an executable stack */
    bool first; /* the next object is the first one: the executable */
} execstack_t;

static int execstack_of(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    execstack_t *x = data;
    bool has = false;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_GNU_STACK) {
            has = true;
            if (info->dlpi_phdr[i].p_flags & PF_X) x->exec = true;
        }
    if (!has && x->first) x->exec = true; /* the executable without the header */
    x->first = false;
    return 0;
}

static int stack_prot(void)
{
    static _Atomic int prot = -1; /* the same answer for every caller: the race is benign */
    int p = atomic_load_explicit(&prot, memory_order_relaxed);
    if (p < 0) {
        execstack_t x = {.exec = false, .first = true};
        (void)dl_iterate_phdr(execstack_of, &x);
        p = PROT_READ | PROT_WRITE | (x.exec ? PROT_EXEC : 0);
        atomic_store_explicit(&prot, p, memory_order_relaxed);
    }
    return p;
}

/* Map the class's next region (lock held). */
static bool map_region(klass_t *k, int c)
{
    size_t slot = slot_bytes(c);
    size_t n = k->next_slots ? k->next_slots : FIRST_SLOTS;
    while (n > 1 && n * slot > MAX_REGION) n /= 2;
    region_t *r = itoi_malloc(sizeof *r);
    if (!r) return false;
    char *map = itoi_mmap(n * slot, stack_prot());
    if (!map) {
        itoi_free(r);
        return false;
    }
    r->map = map;
    r->bytes = n * slot;
    r->carve = map;
    r->uncarved = n;
    r->next = k->regions;
    k->regions = r;
    k->uncarved += n;
    k->capacity += n;
    k->next_slots = n * 2 <= MAX_SLOTS ? n * 2 : MAX_SLOTS;
    atomic_fetch_add_explicit(&n_regions, 1, memory_order_relaxed);
    return true;
}

/* Protect [lo, lo + len) as a guard, the best way this kernel allows; false: unguarded. */
static bool install_guard(char *lo, size_t len)
{
    int mode = atomic_load_explicit(&guard_mode, memory_order_relaxed);
    if (mode <= 1) {
        if (madvise(lo, len, MADV_GUARD_INSTALL) == 0) {
            atomic_store_explicit(&guard_mode, 1, memory_order_relaxed);
            return true;
        }
        if (mode == 1) return false; /* it worked before: out of memory for page tables */
        /* An older kernel: mprotect, two mappings per stack, within a budget of a
         * quarter of vm.max_map_count. */
        long budget = 16384;
        FILE *f = fopen("/proc/sys/vm/max_map_count", "re");
        if (f) {
            long m;
            if (fscanf(f, "%ld", &m) == 1) budget = m / 8;
            fclose(f);
        }
        atomic_store(&mprotect_budget, budget);
        atomic_store(&guard_mode, 2);
        mode = 2;
    }
    if (mode == 2 && atomic_fetch_sub(&mprotect_budget, 1) > 0 && mprotect(lo, len, PROT_NONE) == 0) return true;
    return false;
}

/* Carve the next slot of the class (lock held). */
static itoi_stack_t *carve(klass_t *k, int c)
{
    if (!k->uncarved && !map_region(k, c)) return NULL;
    region_t *r = k->regions;
    while (!r->uncarved) r = r->next; /* regions with room come first: found at once */
    char *slot = r->carve;
    size_t g = guard_bytes(c), size = class_bytes(c);
    r->carve += slot_bytes(c);
    r->uncarved--;
    k->uncarved--;
    bool guarded = install_guard(slot, g);
    itoi_stack_t *s = slot_stack(slot, c);
    s->next = NULL;
    s->base = slot + g;
    s->size = size - ((sizeof(itoi_stack_t) + 63) & ~(size_t)63);
    s->map = slot;            /* the guard's low end */
    s->map_size = slot_bytes(c);
    s->reg_index = (size_t)c | (guarded ? 0 : (size_t)1 << 8);
    if (!guarded) *(uint64_t *)s->base = CANARY;
#ifdef ITOI_VALGRIND
    if (RUNNING_ON_VALGRIND) s->reg_index |= ((size_t)VALGRIND_STACK_REGISTER(s->base, (char *)(s + 1)) + 1) << VG_ID_SHIFT;
#endif
    atomic_fetch_add_explicit(&n_carved, 1, memory_order_relaxed);
    return s;
}

static inline int stack_class(const itoi_stack_t *s) { return (int)(s->reg_index & 0xff); }
static inline bool stack_unguarded(const itoi_stack_t *s) { return (s->reg_index >> 8) & 1; }

static itoi_stack_t *global_get(int c)
{
    klass_t *k = &classes[c];
    itoi_spin_lock(&k->lock);
    itoi_stack_t *s = k->free;
    if (s) {
        k->free = s->next;
        k->nfree--;
    } else {
        s = carve(k, c);
    }
    itoi_spin_unlock(&k->lock);
    return s;
}

/* A worker's own pool (default class), whole, onto the class's global list, and the stack
 * credits it holds of every class back to their classes: run by the owner, in its
 * scheduler context (an itoi_worker_call), so it runs on none of those stacks and takes
 * no credit meanwhile. */
static void give_back(itoi_worker_t *w, itoi_call_t *call)
{
    (void)call;
    atomic_store(&w->stack_call_busy, 0); /* a request made from here on posts again */
    itoi_stack_credits_flush(w);
    itoi_stack_t *head = w->free_stack;
    if (!head) return;
    itoi_stack_t *tail = head;
    while (tail->next) tail = tail->next; /* at most POOL_HIGH; the count is kept (free_stack_n) */
    klass_t *k = &classes[itoi_rt.default_class];
    itoi_spin_lock(&k->lock);
    tail->next = k->free;
    k->free = head;
    k->nfree += atomic_load_explicit(&w->free_stack_n, memory_order_relaxed);
    itoi_spin_unlock(&k->lock);
    w->free_stack = NULL;
    atomic_store_explicit(&w->free_stack_n, 0, memory_order_relaxed);
}

/* A class is out of slots and the kernel refused a new region, yet what it holds may sit
 * in other workers' own hands (owner only), which asks them to give it back to the class,
 * where the next attempt finds it:
 *  - the free stacks of their pools, when the credits promised a stack to a ULT created
 *    (`credits` false: only workers whose pool holds some are asked). Until 2026-12-06
 *    nobody did: a ULT bound to a worker whose pool was empty spun at its pick for ever
 *    while an idle worker held 256 free stacks; found by an outside tester, h69e, under
 *    RLIMIT_AS: test_stack_pool_reclaim.
 *  - the credits they hold (`credits` true: every other worker is asked, since their
 *    counts are theirs to read), when a creation found none: a ULT gives its credit back
 *    to the worker it ended on, which keeps up to 2 * CREDIT_BATCH. Until 2026-12-06 they
 *    stayed there: with the kernel refusing regions (vm.max_map_count reached, RLIMIT_AS),
 *    worker 0 could create 2 ULTs at a time for ever while worker 1, idle, held the
 *    credits of the other 14 stacks of the class, all free (found by an outside tester,
 *    h70c: test_stack_credit_reclaim). The creation that asks fails (ITO_ENOMEM: the call
 *    does not wait for other workers); those after it find the credits. */
static void others_give_back(itoi_worker_t *self, bool credits)
{
    for (int i = 0; i < itoi_rt.nworkers; i++) {
        itoi_worker_t *v = &itoi_rt.workers[i];
        if (v == self || (!credits && atomic_load_explicit(&v->free_stack_n, memory_order_relaxed) == 0)) continue;
        if (atomic_exchange(&v->stack_call_busy, 1)) continue;
        v->stack_call.fn = give_back;
        itoi_worker_call(v, &v->stack_call);
    }
}

itoi_stack_t *itoi_stack_get_slow(itoi_worker_t *w, size_t size)
{
    int c = class_of(size);
    if (ITOI_LIKELY(c == itoi_rt.default_class)) {
        itoi_stack_t *s = w->free_stack;
        if (ITOI_LIKELY(s != NULL)) {
            w->free_stack = s->next;
            ITOI_OWN_ADD(w->free_stack_n, -1);
            return s;
        }
        /* refill a batch from the class's global list, or carve one */
        klass_t *k = &classes[c];
        itoi_spin_lock(&k->lock);
        for (int i = 0; i < POOL_BATCH && k->free; i++) {
            s = k->free;
            k->free = s->next;
            k->nfree--;
            s->next = w->free_stack;
            w->free_stack = s;
            ITOI_OWN_ADD(w->free_stack_n, 1);
        }
        itoi_spin_unlock(&k->lock);
        if (w->free_stack) return itoi_stack_get_slow(w, size);
    }
    itoi_stack_t *s = global_get(c);
    if (ITOI_UNLIKELY(!s) && c == itoi_rt.default_class) others_give_back(w, false);
    return s;
}

/* A stack goes where other workers take from (a class's global list) only when the
 * caller is not running on it: another worker may start a ULT on it at once. (The exit
 * path once gave its own stack back before it resumed the next context; a 20 KiB stack
 * went straight to the global list, another worker started a ULT on it, and the exiting
 * context's last frame, its `next` among them, was overwritten: a ULT ended without
 * having run, or the worker resumed a garbage context. test_stack_handback.) */
static void check_not_running_on(const itoi_stack_t *s)
{
    volatile char here;
    uintptr_t sp = (uintptr_t)&here;
    if (ITOI_UNLIKELY(sp >= (uintptr_t)s->map && sp < (uintptr_t)s->map + s->map_size)) {
        static const char msg[] = "ito: internal error: a stack still in use was given to other workers\n";
        ssize_t r = write(2, msg, sizeof msg - 1);
        (void)r;
        abort();
    }
}

/* What every stack given back goes through: the canary of an unguarded stack, and
 * ASan's poisoning forgotten (the next ULT on it starts from fresh frames). */
static inline void put_check(itoi_stack_t *s)
{
    if (ITOI_UNLIKELY(stack_unguarded(s)) && *(uint64_t *)s->base != CANARY) {
        static const char msg[] = "ito: fatal: stack overflow detected: a ULT ran past the bottom of an "
                                  "unguarded stack (the process has no guard pages left); give it a larger "
                                  "stack (ito_attr_t.stack_size)\n";
        ssize_t r = write(2, msg, sizeof msg - 1);
        (void)r;
        abort();
    }
    itoi_san_unpoison(s->base, s->size);
}

/* s onto w's own pool of the default class (owner only, no lock). */
static inline void own_push(itoi_worker_t *w, itoi_stack_t *s)
{
    s->next = w->free_stack;
    w->free_stack = s;
    ITOI_OWN_ADD(w->free_stack_n, 1);
}

bool itoi_stack_put_own(itoi_worker_t *w, itoi_stack_t *s)
{
    if (stack_class(s) != itoi_rt.default_class ||
        atomic_load_explicit(&w->free_stack_n, memory_order_relaxed) >= POOL_HIGH)
        return false;
    put_check(s);
    own_push(w, s); /* the pool holds at most POOL_HIGH now: it stays there */
    return true;
}

/* A stack whose ULT ended: back to a pool (the post action of the ULT's last switch). */
void itoi_stack_put(itoi_worker_t *w, itoi_stack_t *s)
{
    put_check(s);
    int c = stack_class(s);
    klass_t *k = &classes[c];
    if (ITOI_LIKELY(c == itoi_rt.default_class)) {
        own_push(w, s);
        if (ITOI_LIKELY(atomic_load_explicit(&w->free_stack_n, memory_order_relaxed) <= POOL_HIGH)) return;
        itoi_spin_lock(&k->lock);
        for (int i = 0; i < POOL_BATCH; i++) {
            itoi_stack_t *x = w->free_stack;
            check_not_running_on(x);
            w->free_stack = x->next;
            ITOI_OWN_ADD(w->free_stack_n, -1);
            x->next = k->free;
            k->free = x;
            k->nfree++;
        }
        itoi_spin_unlock(&k->lock);
        return;
    }
    check_not_running_on(s);
    itoi_spin_lock(&k->lock);
    s->next = k->free;
    k->free = s;
    k->nfree++;
    itoi_spin_unlock(&k->lock);
}

#define CREDIT_BATCH 64

/* Take up to n credits of class c for w from the class (mapping regions as needed);
 * returns how many it got. */
static size_t credits_take(itoi_worker_t *w, int c, size_t n)
{
    klass_t *k = &classes[c];
    itoi_spin_lock(&k->lock);
    while (k->capacity - k->committed < n && map_region(k, c)) {
    }
    size_t got = k->capacity - k->committed < n ? k->capacity - k->committed : n;
    k->committed += got;
    itoi_spin_unlock(&k->lock);
    w->stack_credits[c] += got;
    return got;
}

static void credits_give_back(itoi_worker_t *w, int c, size_t n)
{
    klass_t *k = &classes[c];
    itoi_spin_lock(&k->lock);
    k->committed -= n;
    itoi_spin_unlock(&k->lock);
    w->stack_credits[c] -= n;
}

size_t itoi_stack_credit_take_slow(itoi_worker_t *w, size_t size, size_t n)
{
    int c = class_of(size);
    if (w->stack_credits[c] < n) credits_take(w, c, n - w->stack_credits[c] + CREDIT_BATCH);
    if (ITOI_UNLIKELY(w->stack_credits[c] < n)) others_give_back(w, true); /* the class is out: see there */
    size_t got = w->stack_credits[c] < n ? w->stack_credits[c] : n;
    w->stack_credits[c] -= got;
    return got;
}

void itoi_stack_credit_return_slow(itoi_worker_t *w, size_t size)
{
    int c = class_of(size);
    if (++w->stack_credits[c] > 2 * CREDIT_BATCH) credits_give_back(w, c, CREDIT_BATCH);
}

void itoi_stack_credits_flush(itoi_worker_t *w)
{
    for (int c = 0; c < NCLASS; c++)
        if (w->stack_credits[c]) credits_give_back(w, c, w->stack_credits[c]);
}

/* Whether n ULTs with stacks of `size` can exist at all on this machine: each touches at
 * least one page of its stack and has a descriptor, which memory and swap must hold, and
 * their stacks must fit in half the address space. Bulk creation refuses absurd counts
 * with it instead of trying them one by one. */
bool itoi_stack_admit(size_t size, size_t n)
{
    int c = class_of(size);
    size_t slot = guard_bytes(c) + class_bytes(c);
    struct sysinfo si;
    unsigned long long mem = (unsigned long long)1 << 40;
    if (sysinfo(&si) == 0) mem = ((unsigned long long)si.totalram + si.totalswap) * si.mem_unit;
    unsigned long long per = itoi_rt.page + sizeof(itoi_ult_t);
    return n <= mem / per && n <= ((unsigned long long)1 << 46) / slot;
}

uint64_t itoi_stack_mapped_total(void) { return atomic_load(&n_carved); }

uint64_t itoi_stack_live(void)
{
    uint64_t free_n = 0;
    for (int c = 0; c < NCLASS; c++) {
        itoi_spin_lock(&classes[c].lock);
        free_n += classes[c].nfree;
        itoi_spin_unlock(&classes[c].lock);
    }
    for (int i = 0; i < itoi_rt.nworkers; i++)
        free_n += atomic_load_explicit(&itoi_rt.workers[i].free_stack_n, memory_order_relaxed);
    uint64_t carved = atomic_load(&n_carved);
    return carved > free_n ? carved - free_n : 0;
}

uint64_t itoi_stack_regions(void) { return atomic_load(&n_regions); }

void itoi_stack_free_all(void)
{
    for (int c = 0; c < NCLASS; c++) {
        klass_t *k = &classes[c];
        itoi_spin_lock(&k->lock);
        region_t *r = k->regions;
        memset((char *)k + sizeof k->lock, 0, sizeof *k - sizeof k->lock); /* capacity, credits too */
        itoi_spin_unlock(&k->lock);
        while (r) {
            region_t *next = r->next;
#ifdef ITOI_VALGRIND
            if (RUNNING_ON_VALGRIND) { /* every carved slot of the region: its registration goes */
                for (char *slot = r->map; slot < r->carve; slot += slot_bytes(c)) {
                    const itoi_stack_t *s = slot_stack(slot, c);
                    if (s->reg_index >> VG_ID_SHIFT) VALGRIND_STACK_DEREGISTER((s->reg_index >> VG_ID_SHIFT) - 1);
                }
            }
#endif
            itoi_munmap(r->map, r->bytes);
            free(r);
            r = next;
        }
    }
    atomic_store(&n_carved, 0);
    atomic_store(&n_regions, 0);
}

/* ---- overflow detection ---- */

static struct sigaction old_segv, old_bus;
static int handler_installed;

/* Whether a lies below `hi` and no lower than a little under s's guard (a large frame
 * can jump over the guard). */
static bool near_end(const itoi_stack_t *s, const void *a, const char *hi)
{
    /* In integers: main's stack (not ito's) has no map, and NULL - 64 KiB is undefined
     * behaviour (UBSan ended a program whose own SIGSEGV handler was to take a fault in
     * main; found by an outside tester, h61d). Main's stack has no guard of ours. */
    uintptr_t p = (uintptr_t)a, lo = (uintptr_t)s->map, slack = 16 * itoi_rt.page;
    return lo != 0 && p >= (lo > slack ? lo - slack : 0) && p < (uintptr_t)hi;
}

/* The ULT whose stack the code that faulted ran on: the running one, or, inside a switch,
 * the one switching out. switch_with (sched.c) makes the next ULT (or the scheduler
 * context) w->cur before its assembly saves the outgoing context on the outgoing ULT's
 * stack, the full switch ~1-3 KB of vector state: a ULT preempted near the end of its stack
 * hit its guard there, and the fault, checked against the next ULT's stack, was taken for
 * not ours, the process dying of a silent SIGSEGV (the scheduler context next), or named
 * the next ULT (its stack just above: test_overflow_in_switch); SQLite in 64 ULTs of
 * 16 KiB under signal preemption, outside tester h70b. Such a fault's stack pointer lies
 * on the outgoing ULT's stack (w->prev's). */
static bool runs_on(const itoi_ult_t *t, const void *sp)
{
    uintptr_t p = (uintptr_t)sp;
    return t && t->stack && t->stack->map && p >= (uintptr_t)t->stack->map &&
           p < (uintptr_t)(t->stack->base + t->stack->size);
}

static itoi_ult_t *fault_ult(const void *sp)
{
    itoi_worker_t *w = itoi_tls_worker;
    if (!w) return NULL;
    if (!runs_on(w->cur, sp) && runs_on(w->prev, sp)) return w->prev;
    return w->cur && w->cur->stack ? w->cur : NULL;
}

static const void *fault_sp(void *ucv)
{
    return ucv ? (const void *)((const ucontext_t *)ucv)->uc_mcontext.gregs[REG_RSP] : NULL;
}

itoi_ult_t *itoi_stack_guard_owner(void *addr, void *ucv)
{
    itoi_ult_t *t = fault_ult(fault_sp(ucv));
    return t && near_end(t->stack, addr, t->stack->base) ? t : NULL;
}

static void put_str(const char *s) { ssize_t r = write(2, s, strlen(s)); (void)r; }

static void put_u64(uint64_t v)
{
    char b[24];
    int i = 23;
    b[i] = 0;
    do { b[--i] = (char)('0' + v % 10); v /= 10; } while (v);
    put_str(b + i);
}

/* The room a signal's frame takes on the interrupted stack: the kernel's frame (it
 * reports its size in the auxiliary vector; it holds the whole FPU/vector state, ~3.4 KB
 * with AVX-512) and the 128-byte red zone below the stack pointer. Set at install. */
static size_t sigframe_room = 4096;

/* A signal that arrives while a ULT is near the end of its stack (the preemption tick, a
 * timer, the program's own) needs room for its frame there (a ULT's stack is not an
 * alternate signal stack). When it does not fit, the kernel cannot deliver the signal
 * and kills the delivery with SIGSEGV: si_code SI_KERNEL, no fault address; only the
 * interrupted stack pointer tells that it was a ULT's stack that was too small. */
static itoi_ult_t *frame_overflow(const siginfo_t *si, void *ucv)
{
    if (si->si_code != SI_KERNEL || !ucv) return NULL;
    const void *sp = fault_sp(ucv);
    itoi_ult_t *t = fault_ult(sp);
    return t && near_end(t->stack, sp, t->stack->base + sigframe_room) ? t : NULL;
}

static void on_segv(int sig, siginfo_t *si, void *uc)
{
    itoi_ult_t *t = NULL;
    int frame = 0;
    /* A jump to the faulting address (code run from memory that is not executable, such
     * as a stack) is no overflow, wherever it points. */
    bool fetch = uc && (uintptr_t)si->si_addr == (uintptr_t)((ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP];
    if (!fetch) {
        t = itoi_stack_guard_owner(si->si_addr, uc);
        if (!t) {
            t = frame_overflow(si, uc);
            frame = t != NULL;
        }
    }
    if (t) {
        itoi_worker_t *w = itoi_tls_worker;
        itoi_stack_t *s = t->stack;
        char name[ITOI_NAME_LEN + 24];
        itoi_ult_name(t, name, sizeof name);
        put_str("ito: fatal: stack overflow in ULT '");
        put_str(name);
        put_str("' (id ");
        put_u64(t->id);
        put_str(", worker ");
        put_u64((uint64_t)w->index);
        if (frame) {
            put_str("): a signal arrived with less than the ");
            put_u64(sigframe_room);
            put_str(" bytes its frame needs left on the ULT's ");
            put_u64(s->size);
            put_str("-byte stack (signal handlers, the preemption tick's included, run on the ULT's stack)");
        } else {
            put_str("): it ran past its ");
            put_u64(s->size);
            put_str("-byte stack into the guard below it");
        }
        put_str("; give it a larger stack (ito_attr_t.stack_size)\n");
        signal(sig, SIG_DFL);
        /* A guard hit re-faults when the handler returns, and the default action ends the
         * process; a frame that did not fit left nothing to re-fault: raise it (blocked
         * in this handler, it is delivered, by default, when the handler returns). */
        if (frame) raise(sig);
        return;
    }
    /* Not ours: hand it to whoever was there before. */
    struct sigaction *old = sig == SIGSEGV ? &old_segv : &old_bus;
    if (old->sa_flags & SA_SIGINFO) {
        old->sa_sigaction(sig, si, uc);
    } else if (old->sa_handler == SIG_IGN || old->sa_handler == SIG_DFL) {
        signal(sig, SIG_DFL);
    } else {
        old->sa_handler(sig);
    }
}

int itoi_overflow_handler_install(void)
{
    if (handler_installed) return 0;
#ifdef AT_MINSIGSTKSZ
    unsigned long frame = getauxval(AT_MINSIGSTKSZ);
    if (frame) sigframe_room = frame + 128;
#endif
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGSEGV, &sa, &old_segv) != 0) return -1;
    if (sigaction(SIGBUS, &sa, &old_bus) != 0) return -1;
    handler_installed = 1;
    return 0;
}

/* Finalize gives the process back as ito_init found it: the program's own SIGSEGV and
 * SIGBUS handlers (unless it installed others since: those stay), so that no handler
 * points into a libito that dlclose unmapped. */
static void restore_if_ours(int sig, const struct sigaction *old)
{
    struct sigaction cur;
    if (sigaction(sig, NULL, &cur) == 0 && (cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == on_segv)
        sigaction(sig, old, NULL);
}

void itoi_overflow_handler_remove(void)
{
    if (!handler_installed) return;
    restore_if_ours(SIGSEGV, &old_segv);
    restore_if_ours(SIGBUS, &old_bus);
    handler_installed = 0;
}

/* The alternate signal stack of ito_init's caller (worker 0, the program's thread), put
 * back at finalize; the other workers are ito's own threads. */
static stack_t main_old_ss;

int itoi_altstack_setup(itoi_worker_t *w)
{
    size_t size = 64 * 1024;
    void *p = itoi_mmap(size, PROT_READ | PROT_WRITE);
    if (!p) return -1;
    stack_t ss = {.ss_sp = p, .ss_size = size, .ss_flags = 0}, old;
    if (sigaltstack(&ss, &old) != 0) {
        itoi_munmap(p, size);
        return -1;
    }
    if (w->index == 0) main_old_ss = old;
    w->altstack = p;
    return 0;
}

void itoi_altstack_teardown(itoi_worker_t *w)
{
    if (!w->altstack) return;
    stack_t off = {.ss_sp = NULL, .ss_size = 0, .ss_flags = SS_DISABLE};
    if (w->index == 0 && !(main_old_ss.ss_flags & SS_DISABLE)) {
        stack_t back = {.ss_sp = main_old_ss.ss_sp, .ss_size = main_old_ss.ss_size, .ss_flags = 0};
        if (sigaltstack(&back, NULL) != 0) sigaltstack(&off, NULL);
    } else {
        sigaltstack(&off, NULL);
    }
    itoi_munmap(w->altstack, 64 * 1024);
    w->altstack = NULL;
}
