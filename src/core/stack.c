/* stack.c: ULT stacks: mmap'd with a guard page, pooled per worker, and the SIGSEGV
 * handler that turns a guard-page hit into a report naming the thread.
 *
 * Invariants:
 *  - Every stack mapping is in the registry (a global array, guarded by reg_lock and
 *    touched only when a stack is mapped or unmapped, never on the hot path), so that
 *    ito_finalize can unmap all of them wherever they are: pooled, held by a finished
 *    but unjoined ULT, or held by a ULT still blocked at finalize.
 *  - A worker's pool (w->free_stack) holds stacks of the default size and is touched
 *    only by its owner. Past POOL_HIGH stacks, a batch moves to the global pool; an
 *    empty worker pool refills a batch from it before mapping new stacks.
 *  - Layout of a mapping: [guard page (PROT_NONE)][usable stack ... top]. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "itoi.h"
#include "sanitizer.h"

#define POOL_HIGH 256
#define POOL_BATCH 64

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static itoi_stack_t **reg;          /* every live mapping */
static size_t reg_n, reg_cap;
static itoi_spinlock_t gpool_lock;  /* zero-initialised = unlocked */
static itoi_stack_t *gpool;         /* global overflow pool of default-size stacks */
static _Atomic size_t gpool_n; /* read without the lock as a hint */
static _Atomic uint64_t n_mapped_total;

static int reg_add(itoi_stack_t *s)
{
    pthread_mutex_lock(&reg_lock);
    if (reg_n == reg_cap) {
        size_t cap = reg_cap ? reg_cap * 2 : 1024;
        itoi_stack_t **r = realloc(reg, cap * sizeof *r);
        if (!r) { pthread_mutex_unlock(&reg_lock); return -1; }
        reg = r;
        reg_cap = cap;
    }
    s->reg_index = reg_n;
    reg[reg_n++] = s;
    pthread_mutex_unlock(&reg_lock);
    return 0;
}

static void reg_del(itoi_stack_t *s)
{
    pthread_mutex_lock(&reg_lock);
    itoi_stack_t *last = reg[--reg_n];
    reg[s->reg_index] = last;
    last->reg_index = s->reg_index;
    pthread_mutex_unlock(&reg_lock);
}

static itoi_stack_t *stack_map(size_t size)
{
    size_t page = itoi_rt.page;
    size = (size + page - 1) & ~(page - 1);
    size_t total = size + page;
    char *map = itoi_mmap(total, PROT_READ | PROT_WRITE);
    if (!map) return NULL;
    if (mprotect(map, page, PROT_NONE) != 0) {
        itoi_munmap(map, total);
        return NULL;
    }
    /* The descriptor of the stack lives at its top, above the usable area. */
    itoi_stack_t *s = (itoi_stack_t *)(map + total - sizeof(itoi_stack_t));
    s->map = map;
    s->map_size = total;
    s->base = map + page;
    s->size = total - page - ((sizeof(itoi_stack_t) + 63) & ~(size_t)63);
    s->next = NULL;
    if (reg_add(s) != 0) {
        itoi_munmap(map, total);
        return NULL;
    }
    atomic_fetch_add_explicit(&n_mapped_total, 1, memory_order_relaxed);
    return s;
}

static void stack_unmap(itoi_stack_t *s)
{
    reg_del(s);
    itoi_munmap(s->map, s->map_size);
}

itoi_stack_t *itoi_stack_get(itoi_worker_t *w, size_t size)
{
    size = (size + itoi_rt.page - 1) & ~(itoi_rt.page - 1);
    if (ITOI_LIKELY(size == itoi_rt.default_stack)) {
        itoi_stack_t *s = w->free_stack;
        if (ITOI_LIKELY(s != NULL)) {
            w->free_stack = s->next;
            w->free_stack_n--;
            return s;
        }
        if (atomic_load_explicit(&gpool_n, memory_order_relaxed)) { /* a hint; the lock decides */
            itoi_spin_lock(&gpool_lock);
            for (int i = 0; i < POOL_BATCH && gpool; i++) {
                s = gpool;
                gpool = s->next;
                gpool_n--;
                s->next = w->free_stack;
                w->free_stack = s;
                w->free_stack_n++;
            }
            itoi_spin_unlock(&gpool_lock);
            if (w->free_stack) return itoi_stack_get(w, size);
        }
    }
    return stack_map(size);
}

void itoi_stack_put(itoi_worker_t *w, itoi_stack_t *s)
{
    if (s->map_size != itoi_rt.default_stack + itoi_rt.page) {
        stack_unmap(s); /* a stack of another size is not pooled */
        return;
    }
    /* The next ULT on this stack starts from fresh frames: forget ASan's poisoning. */
    itoi_san_unpoison(s->base, s->size);
    s->next = w->free_stack;
    w->free_stack = s;
    if (ITOI_UNLIKELY(++w->free_stack_n > POOL_HIGH)) {
        itoi_spin_lock(&gpool_lock);
        for (int i = 0; i < POOL_BATCH; i++) {
            itoi_stack_t *x = w->free_stack;
            w->free_stack = x->next;
            w->free_stack_n--;
            x->next = gpool;
            gpool = x;
            gpool_n++;
        }
        itoi_spin_unlock(&gpool_lock);
    }
}

uint64_t itoi_stack_mapped_total(void) { return atomic_load(&n_mapped_total); }
uint64_t itoi_stack_live(void)
{
    pthread_mutex_lock(&reg_lock);
    uint64_t n = reg_n;
    pthread_mutex_unlock(&reg_lock);
    return n;
}

void itoi_stack_free_all(void)
{
    pthread_mutex_lock(&reg_lock);
    itoi_stack_t **r = reg;
    size_t n = reg_n;
    reg = NULL;
    reg_n = reg_cap = 0;
    pthread_mutex_unlock(&reg_lock);
    for (size_t i = 0; i < n; i++) itoi_munmap(r[i]->map, r[i]->map_size);
    free(r);
    gpool = NULL;
    gpool_n = 0;
    atomic_store(&n_mapped_total, 0);
}

/* ---- overflow detection ---- */

static struct sigaction old_segv, old_bus;
static int handler_installed;

int itoi_stack_guard_owner(void *addr, itoi_stack_t **out)
{
    itoi_worker_t *w = itoi_tls_worker;
    if (!w || !w->cur || !w->cur->stack) return 0;
    itoi_stack_t *s = w->cur->stack;
    char *a = addr;
    /* The guard page, and a little below it (a large frame can jump over it). */
    if (a >= s->map - 16 * itoi_rt.page && a < s->base) {
        *out = s;
        return 1;
    }
    return 0;
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

static void on_segv(int sig, siginfo_t *si, void *uc)
{
    itoi_stack_t *s;
    if (itoi_stack_guard_owner(si->si_addr, &s)) {
        itoi_worker_t *w = itoi_tls_worker;
        put_str("ito: fatal: stack overflow in ULT '");
        put_str(w->cur->name[0] ? w->cur->name : "(unnamed)");
        put_str("' (id ");
        put_u64(w->cur->id);
        put_str(", worker ");
        put_u64((uint64_t)w->index);
        put_str("): it ran past its ");
        put_u64(s->size);
        put_str("-byte stack into the guard page; give it a larger stack (ito_attr_t.stack_size)\n");
        signal(sig, SIG_DFL); /* returning re-faults and the default action ends the process */
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

int itoi_altstack_setup(itoi_worker_t *w)
{
    size_t size = 64 * 1024;
    void *p = itoi_mmap(size, PROT_READ | PROT_WRITE);
    if (!p) return -1;
    stack_t ss = {.ss_sp = p, .ss_size = size, .ss_flags = 0};
    if (sigaltstack(&ss, NULL) != 0) {
        itoi_munmap(p, size);
        return -1;
    }
    w->altstack = p;
    return 0;
}

void itoi_altstack_teardown(itoi_worker_t *w)
{
    if (!w->altstack) return;
    stack_t ss = {.ss_sp = NULL, .ss_size = 0, .ss_flags = SS_DISABLE};
    sigaltstack(&ss, NULL);
    itoi_munmap(w->altstack, 64 * 1024);
    w->altstack = NULL;
}
