/* runtime.c: ito_init and ito_finalize: the workers, the main ULT, statistics.
 *
 * ito_init turns the calling kernel thread into worker 0 and its current flow of
 * control into the main ULT (bound to worker 0, so that ito_finalize returns on the
 * thread and stack main started on). Worker 0's scheduler context gets a stack of its
 * own; workers 1..N-1 are pthreads whose own stacks serve as scheduler contexts.
 *
 * ito_finalize, from main: waits for live work (the rule is stated above ito_finalize
 * below), then stops and joins the workers and unmaps every stack. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "ito/coop.h"
#include "ito/debug.h"
#include "ultstate.h"
#include "itoi.h"
#include "sanitizer.h"

itoi_runtime_t itoi_rt;

static itoi_stack_t main_stack; /* bounds of the process's main stack (not mapped by ito) */
static void *workers_raw;
#define SCHED_STACK (256 * 1024)

uint64_t itoi_stack_mapped_total(void);
uint64_t itoi_stack_live(void);

static void stack_bounds_of_self(const void **lo, size_t *size)
{
    pthread_attr_t a;
    void *addr = NULL;
    size_t sz = 0;
    if (pthread_getattr_np(pthread_self(), &a) == 0) {
        pthread_attr_getstack(&a, &addr, &sz);
        pthread_attr_destroy(&a);
    }
    *lo = addr;
    *size = sz;
}

/* Timer slack: the kernel may delay a sleeping thread's timeout by its slack (50 us by
 * default); workers sleep until ito's timers are due, so they ask for 1 us. Worker 0 is
 * the caller's thread: its own slack comes back at ito_finalize. */
#define WORKER_TIMERSLACK_NS 1000
static long saved_slack = -1;
/* SIGURG (the preemption tick, src/preempt) was blocked in ito_init's caller: the runtime
 * opens it there, so that the workers it starts inherit it open, and closes it again at
 * teardown (the caller's thread gets its own mask back, as its timer slack). */
static int main_urg_blocked;
static sigset_t urg_only(void)
{
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGURG);
    return s;
}
/* ITO_AFFINITY=on: worker i runs on the i-th CPU of the process's mask at ito_init (wrapping
 * around); the calling thread (worker 0) gets its own mask back at ito_finalize. */
static cpu_set_t init_mask, main_mask;
static int init_ncpu, main_pinned;

static void pin_self(int index)
{
    if (!itoi_env.affinity || init_ncpu <= 0) return;
    int k = index % init_ncpu;
    for (int c = 0; c < CPU_SETSIZE; c++) {
        if (!CPU_ISSET(c, &init_mask) || k--) continue;
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(c, &one);
        (void)pthread_setaffinity_np(pthread_self(), sizeof one, &one); /* best effort */
        return;
    }
}

/* The C++ runtime's per-thread exception globals (ultstate.h): NULL in a process without a
 * C++ runtime. A weak reference alone is bound once, when libito is relocated: a C program
 * that loaded its C++ code with dlopen (a plugin, python3's ctypes) kept NULL, and its ULTs
 * shared their kernel thread's exception stack (a `throw;` after a yield in a catch block
 * rethrew another ULT's exception; found by an outside tester, h65e, 2026-12-06). So when
 * the weak reference is NULL the symbol is looked up again at each ito_init, in the global
 * scope and among the C++ ABI libraries loaded with RTLD_LOCAL: a C++ runtime loaded before
 * ito_init is found. (One loaded after ito_init is not: ultstate.h.)
 * The look-up runs on ito_init's caller, before any worker starts, never on a worker: dlsym
 * and dlopen take the dynamic loader's lock, which a dlopen holds while it runs the loaded
 * library's constructors, so a constructor that called ito_init (a C plugin starting its
 * runtime) waited for ever for workers blocked in dlsym (found by an outside tester, h68d,
 * 2026-12-06; test_init_in_dlopen_ctor). The caller may take the lock again (it is
 * recursive); the workers only call the function found. */
extern void *__cxa_get_globals(void) __attribute__((weak));

static void *(*eh_globals_fn)(void); /* set by itoi_eh_resolve before the workers start */

void itoi_eh_resolve(void)
{
    void *(*f)(void) = __cxa_get_globals;
    if (f == NULL) {
        /* global scope first; then the C++ ABI libraries loaded locally (dlopen's default,
         * RTLD_LOCAL, keeps a plugin's dependencies out of the global scope) */
        void *sym = dlsym(RTLD_DEFAULT, "__cxa_get_globals");
        static const char *const abi_libs[] = {"libstdc++.so.6", "libc++abi.so.1"};
        for (size_t i = 0; sym == NULL && i < sizeof abi_libs / sizeof abi_libs[0]; i++) {
            void *h = dlopen(abi_libs[i], RTLD_NOW | RTLD_NOLOAD);
            if (h == NULL) continue;
            sym = dlsym(h, "__cxa_get_globals");
            dlclose(h); /* NOLOAD took a reference to an object that stays loaded */
        }
        memcpy(&f, &sym, sizeof f); /* ISO C: no cast from an object to a function pointer */
    }
    eh_globals_fn = f;
}

void *itoi_eh_globals(void)
{
    void *(*f)(void) = eh_globals_fn;
    return f ? f() : NULL;
}

static pthread_key_t thread_key; /* a worker's kernel thread ending: see thread_ended below */

/* The calling kernel thread serves worker w from now on (NULL: no more, a normal end). */
static void mark_thread(itoi_worker_t *w)
{
    if (thread_key != (pthread_key_t)-1) pthread_setspecific(thread_key, w);
}

static void *worker_main(void *arg)
{
    itoi_worker_t *w = arg;
    itoi_state_bind(w);
    prctl(PR_SET_TIMERSLACK, WORKER_TIMERSLACK_NS);
    w->io_open_rc = itoi_wsc_worker_open(w); /* on its own thread, before ito_init can return */
    atomic_store(&w->tid, (int)syscall(SYS_gettid));
    pin_self(w->index);
    itoi_altstack_setup(w); /* best effort: without it an overflow is still fatal, just unnamed */
    stack_bounds_of_self(&w->sched_lo, &w->sched_size);
#if defined(ITOI_TSAN)
    w->tsan_sched_fiber = __tsan_get_current_fiber();
#endif
    mark_thread(w);
    itoi_worker_loop(w);
    mark_thread(NULL);
    itoi_altstack_teardown(w);
    itoi_tls_worker = NULL;
    return NULL;
}

static void sched_entry(void)
{
    itoi_worker_t *w = itoi_self_worker();
    itoi_san_after(NULL);
    itoi_worker_loop(w);
    /* Worker 0's scheduler context is never resumed after shutdown: main finalizes. */
    for (;;) pause();
}

#define MAX_FINI 8
static void (*finis[MAX_FINI])(void);
static int nfinis;
static pthread_mutex_t fini_lock = PTHREAD_MUTEX_INITIALIZER;

int itoi_fini_add(void (*fn)(void))
{
    int rc = ITO_OK;
    pthread_mutex_lock(&fini_lock);
    for (int i = 0; i < nfinis; i++)
        if (finis[i] == fn) goto out;
    if (nfinis == MAX_FINI) rc = ITO_ENOMEM;
    else finis[nfinis++] = fn;
out:
    pthread_mutex_unlock(&fini_lock);
    return rc;
}

static const itoi_fini_ops_t *fini_ops[MAX_FINI];
static int nfini_ops;

int itoi_fini_ops_add(const itoi_fini_ops_t *ops)
{
    int rc = ITO_OK;
    pthread_mutex_lock(&fini_lock);
    for (int i = 0; i < nfini_ops; i++)
        if (fini_ops[i] == ops) goto out;
    if (nfini_ops == MAX_FINI) rc = ITO_ENOMEM;
    else fini_ops[nfini_ops++] = ops;
out:
    pthread_mutex_unlock(&fini_lock);
    return rc;
}

static void teardown(int started)
{
    itoi_worker_t *w0 = &itoi_rt.workers[0];
    atomic_store(&itoi_rt.shutdown, 1);
    for (int i = 1; i < started; i++) itoi_wake_worker(&itoi_rt.workers[i]);
    for (int i = 1; i < started; i++) pthread_join((pthread_t)itoi_rt.workers[i].pthread, NULL);
    pthread_mutex_lock(&fini_lock);
    for (int i = nfinis - 1; i >= 0; i--) finis[i]();
    pthread_mutex_unlock(&fini_lock);
    itoi_altstack_teardown(w0);
    itoi_overflow_handler_remove();
    if (saved_slack >= 0) prctl(PR_SET_TIMERSLACK, saved_slack);
    saved_slack = -1;
    if (main_urg_blocked) {
        sigset_t u = urg_only();
        pthread_sigmask(SIG_BLOCK, &u, NULL);
    }
    main_urg_blocked = 0;
    if (main_pinned) (void)pthread_setaffinity_np(pthread_self(), sizeof main_mask, &main_mask);
    main_pinned = 0;
#if defined(ITOI_ASAN)
    /* Worker 0's scheduler context is never resumed: the ASan fake stack it parked in
     * sched_fake at its last switch would stay mapped, one (~2.8 MiB) per init/finalize
     * cycle (found by an outside tester, h65c, 2026-12-06; test_asan_fake_stack_cycles).
     * A fiber's fake stack is freed only by the fiber's own last switch (NULL save slot),
     * so main, which runs on the same kernel thread, takes it up for a moment in ASan's
     * books and ends it as a dying fiber would, then takes its own back. Only the
     * sanitizer's calls run in between (no instrumented frame). */
    if (w0->sched_fake) {
        void *main_fake = NULL;
        const void *main_lo = NULL;
        size_t main_size = 0;
        __sanitizer_start_switch_fiber(&main_fake, w0->sched_lo, w0->sched_size);
        __sanitizer_finish_switch_fiber(w0->sched_fake, &main_lo, &main_size);
        __sanitizer_start_switch_fiber(NULL, main_lo, main_size);
        __sanitizer_finish_switch_fiber(main_fake, NULL, NULL);
        w0->sched_fake = NULL;
    }
#endif
    if (w0->sched_stack_map) itoi_munmap(w0->sched_stack_map, w0->sched_stack_size);
#if defined(ITOI_TSAN)
    if (w0->tsan_sched_fiber) __tsan_destroy_fiber(w0->tsan_sched_fiber);
#endif
    for (int i = 0; i < itoi_rt.nworkers; i++) itoi_stack_credits_flush(&itoi_rt.workers[i]);
    itoi_stack_free_all();
    itoi_ult_free_all();
    for (int i = 0; i < itoi_rt.nworkers; i++) {
        itoi_idlewait_teardown(&itoi_rt.workers[i]);
        itoi_timers_free(&itoi_rt.workers[i]);
    }
    free(workers_raw);
    workers_raw = NULL;
    itoi_rt.workers = NULL;
    itoi_tls_worker = NULL;
    mark_thread(NULL); /* finalized */
    atomic_store(&itoi_rt.state, 0);
}

/* The child of a fork() has one thread and a copy of the parent's runtime, whose io_uring
 * rings and epoll sets are shared with the parent: any use would run the parent's queued
 * ULTs a second time or post into the parent's rings. So the child is shut out for good:
 * every call fails (ITO_ESTATE; the wrappers EPERM, as for a foreign thread), ito_init
 * too. It may exec or exit. */
static void on_fork_child(void)
{
    int s = atomic_load(&itoi_rt.state);
    if (s == 0) return; /* no runtime: the child may start its own */
    atomic_store(&itoi_rt.state, 4);
    itoi_tls_worker = NULL; /* the forking thread is a foreign thread now */
}

/* Every worker's kernel thread holds its worker under thread_key from its start to its
 * normal end (the init thread: from ito_init to the teardown), so that its ending while
 * the runtime runs is noticed by the key's destructor and said on stderr:
 *  - inside a ULT other than main, or a ZWT: pthread_exit (or a cancellation) in a ULT
 *    took the worker's kernel thread down with it. That worker, the ULT and everything
 *    queued on the worker are gone, and a join or ito_finalize would wait for them for
 *    ever: the message names the ULT and the process aborts, rather than hang;
 *  - the thread that called ito_init, as the main ULT (it returned from its start
 *    function or called pthread_exit without ito_finalize): worker 0 and what waits on it
 *    stop with it and nobody can call ito_finalize any more (every other thread is
 *    foreign: ITO_ENOTULT); nothing can be returned to anyone, the message says so. (The
 *    process's main thread ends through exit(), which runs no destructor: the process
 *    ends anyway.) */
static void thread_ended(void *arg)
{
    const itoi_worker_t *w = arg;
    int s = atomic_load(&itoi_rt.state);
    if (s != 1 && s != 2) return;
    const itoi_ult_t *cur = w->cur;
    if (cur != itoi_rt.main_ult) { /* a ULT other than main, or none (a ZWT) */
        if (cur)
            fprintf(stderr, "ito: the kernel thread of worker %d ended inside ULT %llu (pthread_exit in a ULT? "
                            "a ULT ends by returning or with ito_exit): the worker and its ULTs are gone, "
                            "aborting\n", w->index, (unsigned long long)cur->id);
        else
            fprintf(stderr, "ito: the kernel thread of worker %d ended while the runtime runs (pthread_exit in "
                            "a ZWT, or a cancellation?): the worker and its ULTs are gone, aborting\n", w->index);
        abort();
    }
    fprintf(stderr, "ito: the thread that called ito_init ended without ito_finalize: worker 0 and "
                    "the ULTs that wait on it stopped with it, and the runtime can no longer be "
                    "finalized\n");
}

static pthread_once_t fork_once = PTHREAD_ONCE_INIT;
static bool key_made;
static void fork_hook(void)
{
    pthread_atfork(NULL, NULL, on_fork_child);
    if (pthread_key_create(&thread_key, thread_ended) != 0) thread_key = (pthread_key_t)-1;
    else key_made = true;
}

/* A libito linked statically into a library that is unloaded gives its key back (libito.so
 * itself is never unloaded: -z nodelete, src/CMakeLists.txt). Each load of such a plugin
 * that ran ito_init took one of the process's 1024 pthread keys for good, its destructor
 * pointing into unmapped code, until the host's own pthread_key_create failed (outside
 * tester h78d; tests/test_dlclose_static_key.c). Only with no runtime up: a process that
 * exits with one running may still see a worker end through it. (The fork handlers go
 * with the library: glibc unregisters those of an unloaded object.) */
__attribute__((destructor)) static void key_give_back(void)
{
    if (key_made && atomic_load(&itoi_rt.state) == 0) pthread_key_delete(thread_key);
}

int ito_init(const ito_config_t *cfg)
{
    pthread_once(&fork_once, fork_hook);
    int expect = 0;
    if (!atomic_compare_exchange_strong(&itoi_rt.state, &expect, 3)) return ITO_ESTATE;
    int rc = ITO_OK, n = cfg ? cfg->workers : 0;
    size_t ss = cfg ? cfg->stack_size : 0;
    if (cfg && (n < 0 || n > ITOI_MAX_WORKERS)) {
        /* one line says which, as for a bad environment variable (thread.h) */
        fprintf(stderr, "ito: ito_config_t.workers=%d is not valid; accepted: 0 (the default) or 1 to %d\n", n,
                ITOI_MAX_WORKERS);
        rc = ITO_EINVAL;
        goto fail_early;
    }
    if (ss && (ss < ITO_STACK_MIN || ss > ITO_STACK_MAX)) {
        fprintf(stderr, "ito: ito_config_t.stack_size=%zu is not valid; accepted: 0 (the default) or %zu to %zu\n",
                ss, (size_t)ITO_STACK_MIN, (size_t)ITO_STACK_MAX);
        rc = ITO_EINVAL;
        goto fail_early;
    }
    if ((rc = itoi_env_load()) != ITO_OK) goto fail_early;
    if (itoi_env.coop_budget >= 0 || itoi_env.coop_slice_ns >= 0)
        (void)ito_coop_set_budget(itoi_env.coop_budget >= 0 ? itoi_env.coop_budget : ITO_COOP_BUDGET_DEFAULT,
                                  itoi_env.coop_slice_ns >= 0 ? (unsigned long long)itoi_env.coop_slice_ns : 0);
    if (n == 0) {
        /* The CPUs this process may run on (taskset, cgroups' cpusets), as Go and Tokio
         * count them; all online CPUs if the mask cannot be read. */
        cpu_set_t set;
        long avail = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : sysconf(_SC_NPROCESSORS_ONLN);
        long c = itoi_env.workers ? itoi_env.workers : avail;
        n = c > 0 ? (int)(c > ITOI_MAX_WORKERS ? ITOI_MAX_WORKERS : c) : 1;
    }
    itoi_rt.finalize_grace_ns =
        (uint64_t)(itoi_env.finalize_grace_ms >= 0 ? itoi_env.finalize_grace_ms : 1000) * 1000000u;
    if ((rc = itoa_cpu_init((int)itoi_env.fp_restore)) != ITO_OK) {
        fprintf(stderr, "ito: CET shadow stacks are enabled for this process; ito's context "
                        "switch does not switch shadow stacks, so it refuses to start\n");
        goto fail_early;
    }
    itoi_fault_reset();
    itoi_rt.page = (size_t)sysconf(_SC_PAGESIZE);
    itoi_rt.default_stack = itoi_stack_round(ss ? ss : 64 * 1024);
    itoi_rt.default_class = 0;
    while (((size_t)8192 << itoi_rt.default_class) < itoi_rt.default_stack) itoi_rt.default_class++;
    itoi_rt.nworkers = n;
    atomic_store(&itoi_rt.shutdown, 0);
    atomic_store(&itoi_rt.want_work, 0);
    /* Live work's foreign term pairs with the workers' run counts, which start at 0 in
     * the new workers: it starts at 0 too (it carried the last runtime's foreign-fired
     * units, and every later ito_finalize saw them as live work: ITO_EBUSY for ever). */
    atomic_store(&itoi_rt.foreign_units, 0);

    workers_raw = itoi_calloc(1, (size_t)n * sizeof(itoi_worker_t) + ITOI_CACHELINE);
    if (!workers_raw) {
        rc = ITO_ENOMEM;
        goto fail_early;
    }
    itoi_rt.workers = (itoi_worker_t *)(((uintptr_t)workers_raw + ITOI_CACHELINE - 1) &
                                        ~(uintptr_t)(ITOI_CACHELINE - 1));
    for (int i = 0; i < n; i++) {
        itoi_worker_t *w = &itoi_rt.workers[i];
        w->index = i;
        w->idle_ep = w->wake_fd = -1;
        atomic_init(&w->timer_next, ITO_FOREVER);
        w->sleep_cap = ITO_FOREVER;
        w->look = ITOI_LOOK_EVERY; /* the first look, at the 64th point */
        itoi_spin_init(&w->inbox_lock);
        itoi_spin_init(&w->steal_lock);
    }
    for (int i = 0; i < n; i++) {
        if ((rc = itoi_idlewait_setup(&itoi_rt.workers[i])) != ITO_OK) {
            for (int j = 0; j < i; j++) itoi_idlewait_teardown(&itoi_rt.workers[j]);
            free(workers_raw);
            workers_raw = NULL;
            goto fail_early;
        }
    }

    /* Worker 0 and the main ULT. */
    itoi_worker_t *w0 = &itoi_rt.workers[0];
    w0->sched_stack_size = SCHED_STACK;
    w0->sched_stack_map = itoi_mmap(SCHED_STACK, PROT_READ | PROT_WRITE);
    if (!w0->sched_stack_map) {
        rc = ITO_ENOMEM;
        goto fail;
    }
    w0->sched_lo = w0->sched_stack_map;
    w0->sched_size = SCHED_STACK;
    w0->sched_sp = itoa_make((char *)w0->sched_stack_map + SCHED_STACK, sched_entry);
#if defined(ITOI_TSAN)
    w0->tsan_sched_fiber = __tsan_create_fiber(0);
#endif
    /* main's descriptor comes from the handle arena like every ULT's (its handle is
     * checked the same way), a new one in every runtime */
    itoi_ult_t *main_ult = itoi_ult_alloc(w0);
    if (!main_ult) {
        rc = ITO_ENOMEM;
        goto fail;
    }
    uint16_t main_gen = atomic_load_explicit(&main_ult->gen, memory_order_relaxed);
    memset(main_ult, 0, sizeof *main_ult);
    itoi_ult_set_gen(main_ult, main_gen);
    stack_bounds_of_self((const void **)&main_stack.base, &main_stack.size);
    main_ult->stack = &main_stack;
    main_ult->flags = ITOI_F_MAIN;
    main_ult->bound = 0;
    main_ult->id = 0;
    itoi_ult_init_state(main_ult);
    strcpy(main_ult->name, "main");
    atomic_store(&main_ult->state, itoi_st_live(main_ult, ITOI_LIVE));
#if defined(ITOI_TSAN)
    main_ult->tsan_fiber = __tsan_get_current_fiber();
#endif
    itoi_rt.main_ult = main_ult;
    w0->cur = main_ult;
    w0->next_id = 1;
    itoi_eh_resolve();   /* here, before any worker starts: see itoi_eh_resolve */
    itoi_state_bind(w0); /* main's own errno and exceptions stay there: main is running */
    atomic_store(&w0->tid, (int)syscall(SYS_gettid));
    saved_slack = prctl(PR_GET_TIMERSLACK);
    sigset_t urg = urg_only(), old_mask;
    main_urg_blocked = pthread_sigmask(SIG_UNBLOCK, &urg, &old_mask) == 0 && sigismember(&old_mask, SIGURG);
    {   /* the mask the workers start with (they inherit it); 0 if it could not be read */
        sigset_t start;
        uint64_t word = 0;
        if (pthread_sigmask(SIG_BLOCK, NULL, &start) == 0) memcpy(&word, &start, sizeof word);
        itoi_rt.start_sigmask = word;
    }
    init_ncpu = sched_getaffinity(0, sizeof init_mask, &init_mask) == 0 ? CPU_COUNT(&init_mask) : 0;
    if (itoi_env.affinity && init_ncpu > 0 &&
        pthread_getaffinity_np(pthread_self(), sizeof main_mask, &main_mask) == 0) {
        main_pinned = 1;
        pin_self(0);
    }
    prctl(PR_SET_TIMERSLACK, WORKER_TIMERSLACK_NS);
    if (itoi_altstack_setup(w0) != 0 || itoi_overflow_handler_install() != 0 || itoi_wsc_init() != ITO_OK) {
        rc = ITO_ENOMEM;
        goto fail;
    }
    /* Every worker's I/O descriptors now, not at its first I/O (area.c): worker 0's here,
     * the others' by their own threads before they report their tid. */
    if ((rc = itoi_wsc_worker_open(w0)) != ITO_OK) goto fail;
    int started = 1;
    for (; started < n; started++) {
        pthread_t pt;
        if (pthread_create(&pt, NULL, worker_main, &itoi_rt.workers[started]) != 0) {
            rc = ITO_ENOMEM;
            break;
        }
        itoi_rt.workers[started].pthread = (unsigned long)pt;
    }
    if (rc != ITO_OK) {
        teardown(started);
        return rc;
    }
    /* Every worker is running (and has its kernel thread id) when ito_init returns, and
     * before the door opens to foreign threads: one that enabled preemption in between
     * aimed a timer at thread id 0 (ITO_EIO), and a failed start tore down under it. */
    for (int i = 1; i < n; i++)
        while (atomic_load(&itoi_rt.workers[i].tid) == 0) sched_yield();
    for (int i = 1; i < n && rc == ITO_OK; i++) rc = itoi_rt.workers[i].io_open_rc;
    if (rc != ITO_OK) {
        teardown(n);
        return rc;
    }
    mark_thread(&itoi_rt.workers[0]);
    atomic_store(&itoi_rt.state, 1);
    return ITO_OK;

fail:
    teardown(1);
    return rc;
fail_early:
    atomic_store(&itoi_rt.state, 0);
    return rc;
}

int ito_initialized(void) { return atomic_load(&itoi_rt.state) == 1; }

/* ULTs not finished, stackless units (ZWTs) not yet run or still running, mechanisms'
 * requests not yet done. Completions are summed before creations, so a zero is never seen while
 * something is outstanding (each unit is counted made-ready before it can run). */
static int64_t live_counts(uint64_t *created, uint64_t *ended)
{
    uint64_t fin = 0, cre = 0;
    for (int i = 0; i < itoi_rt.nworkers; i++) {
        itoi_worker_t *w = &itoi_rt.workers[i];
        fin += atomic_load(&w->n_finished) + atomic_load(&w->n_units_done) + atomic_load(&w->n_side_run);
    }
    cre += atomic_load(&itoi_rt.foreign_units);
    for (int i = 0; i < itoi_rt.nworkers; i++) {
        itoi_worker_t *w = &itoi_rt.workers[i];
        cre += atomic_load(&w->n_created) + atomic_load(&w->n_units_ready) + atomic_load(&w->n_side_queued);
    }
    *created = cre;
    *ended = fin;
    return (int64_t)(cre - fin);
}

static int64_t live_work(void)
{
    uint64_t c, f;
    return live_counts(&c, &f);
}

int itoi_foreign_enter(void)
{
    atomic_fetch_add(&itoi_rt.foreign_in, 1);
    if (atomic_load(&itoi_rt.state) == 1) return ITO_OK;
    atomic_fetch_sub(&itoi_rt.foreign_in, 1);
    return ITO_ESTATE;
}

void itoi_foreign_exit(void) { atomic_fetch_sub(&itoi_rt.foreign_in, 1); }

/* ---- finalize ----
 *
 * The rule (also in thread.h and ARCHITECTURE.md): ito_finalize waits for live work, i.e.
 * ULTs not finished (running, ready or blocked), ZWTs ready or running, and split-phase
 * requests in flight. It waits as long as the runtime makes progress (a ULT finishes or
 * is woken, a ZWT runs, a request completes) or holds work that will progress by itself
 * (a ready queue not empty, a worker awake, a timer armed, a timer device armed, a
 * regular-file request in flight). The deadline of a ULT parked in a blocking wrapper
 * (ito_io_deadline, ito_poll's timeout) is not such work: it only bounds a wait that the
 * cancellation below ends sooner (a server's idle timeouts would otherwise hold finalize
 * for their whole length). Once nothing has progressed for the grace period
 * (ITO_FINALIZE_GRACE_MS, default 1000 ms) it cancels what can never complete by itself:
 * requests and readiness waits on sockets, pipes and other non-file descriptors end with
 * -ECANCELED, so parked ULTs wake and run to their end; then it waits again. If ULTs
 * stay blocked on ito objects (mutex, cond, stream, join, frame) with nothing left to
 * cancel, it reports them and returns ITO_EBUSY, leaving the runtime running: nothing is
 * freed under a thread that a foreign thread could still wake, and the caller may call
 * ito_finalize again. */

/* Main's own naps in ito_finalize (its loop's and the fini ops' waits, itoi_fini_nap):
 * each wakes main once, which is not progress. Only main touches it. (Until 2026-12-04
 * the split-phase calls' cancel pass waited for the workers with plain sleeps, whose
 * wake-ups counted as progress: every pass restarted the grace period, and finalize
 * never returned ITO_EBUSY once any wrapper had been used; found by a finalize tester.) */
static uint64_t fini_naps;

/* Progress: wake-ups, finished ULTs, run side work (ZWTs, completions), less main's naps. */
static uint64_t progress(void)
{
    uint64_t p = atomic_load(&itoi_rt.foreign_wakeups) - fini_naps;
    for (int i = 0; i < itoi_rt.nworkers; i++) {
        itoi_worker_t *w = &itoi_rt.workers[i];
        p += atomic_load(&w->n_wakeups) + atomic_load(&w->n_finished) + atomic_load(&w->n_side_run) +
             atomic_load(&w->n_units_run) - atomic_load(&w->n_bound_ends);
    }
    return p;
}

/* The ops, copied under the lock and called without it: cancel and resume may nap (other
 * ops may be added meanwhile), and pending and holds take the mechanisms' own locks, under
 * which a mechanism's first setup adds its ops (device.c setup: tab_lock, then fini_lock).
 * (Until 2026-12-04 pending and holds ran under fini_lock: a foreign thread opening the
 * first device of a second ito_init lifetime while main was in ito_finalize deadlocked
 * with it, each waiting for the other's lock; found by a reviewer.) */
static int fini_ops_copy(const itoi_fini_ops_t **ops)
{
    pthread_mutex_lock(&fini_lock);
    int k = nfini_ops;
    for (int i = 0; i < k; i++) ops[i] = fini_ops[i];
    pthread_mutex_unlock(&fini_lock);
    return k;
}

/* Whether a mechanism's yes-or-no hook at `off` in itoi_fini_ops_t (pending, holds,
 * background_armed) says yes, asked in the order the ops were added, up to the first yes. */
static bool any_op(size_t off)
{
    const itoi_fini_ops_t *ops[MAX_FINI];
    int k = fini_ops_copy(ops);
    for (int i = 0; i < k; i++) {
        bool (*f)(void);
        memcpy(&f, (const char *)ops[i] + off, sizeof f);
        if (f && f()) return true;
    }
    return false;
}

/* Work that will progress by itself, seen from main on worker 0. */
static bool pending(void)
{
    for (int i = 0; i < itoi_rt.nworkers; i++) {
        itoi_worker_t *w = &itoi_rt.workers[i];
        /* an awake worker runs something (a ULT computing makes no progress count for a
         * while), unless it is idle: awake only to poll (busy-polled devices) */
        bool runs = i > 0 && atomic_load(&w->sleep_state) == ITOI_AWAKE &&
                    !atomic_load_explicit(&w->idling, memory_order_relaxed);
        if (runs || atomic_load(&w->steal_n) || atomic_load(&w->inbox_n) ||
            atomic_load(&w->calls) ||
            atomic_load_explicit(&w->ntimers_work, memory_order_relaxed) != 0)
            return true;
    }
    /* Busy-polled devices keep idle workers polling but are not work by themselves (an
     * open idle device in ITO_DEVICE_BUSY mode held finalize for ever); an armed timer
     * device is, through the device's pending hook below. */
    if (atomic_load(&itoi_rt.side_shared) > atomic_load(&itoi_rt.side_busy)) return true;
    return any_op(offsetof(itoi_fini_ops_t, pending));
}

/* Background work (a periodic timer device): its units made ready so far, and whether
 * it is armed. Its runs are not progress, and it does not delay the cancel pass. */
static uint64_t background(void)
{
    uint64_t n = 0;
    const itoi_fini_ops_t *ops[MAX_FINI];
    int k = fini_ops_copy(ops);
    for (int i = 0; i < k; i++)
        if (ops[i]->background) n += ops[i]->background();
    return n;
}

static bool background_armed(void) { return any_op(offsetof(itoi_fini_ops_t, background_armed)); }

/* Work that runs by itself even with nothing live (an armed one-shot timer device). */
static bool holds(void) { return any_op(offsetof(itoi_fini_ops_t, holds)); }

/* Nothing live and nothing that will run by itself, at one instant: no live work, then
 * no armed one-shot timer device, then the same counts as at the first look. A device's
 * delivery makes its handler ready (counted) as it stops holding, under its lock, and a
 * handler that re-arms its device is live until it returns: so an expiry delivered or an
 * arming made between the two looks changes the counts. (holds() then live_work() alone
 * missed a handler that re-armed its device after the first look and returned before
 * the second; found by a reviewer, 2026-12-04.) */
static bool quiet(void)
{
    uint64_t c1, f1, c2, f2;
    if (live_counts(&c1, &f1) > 0 || holds()) return false;
    (void)live_counts(&c2, &f2);
    return c1 == c2 && f1 == f2;
}

static size_t cancel_blocked(void)
{
    size_t n = 0;
    const itoi_fini_ops_t *ops[MAX_FINI];
    int k = fini_ops_copy(ops);
    for (int i = 0; i < k; i++)
        if (ops[i]->cancel) n += ops[i]->cancel();
    return n;
}

static void resume_all(void)
{
    const itoi_fini_ops_t *ops[MAX_FINI];
    int k = fini_ops_copy(ops);
    for (int i = 0; i < k; i++)
        if (ops[i]->resume) ops[i]->resume();
}

/* Main naps on its worker's timer (the worker runs others or sleeps meanwhile). */
void itoi_fini_nap(uint64_t ns)
{
    itoi_worker_t *w = itoi_self_worker();
    w->cur->wait_result = ITO_OK;
    itoi_block_until(w, NULL, NULL, itoi_now_ns() + ns, NULL, NULL, NULL, "finalize");
    fini_naps++;
}

int ito_finalize(void)
{
    if (atomic_load(&itoi_rt.state) != 1) return ITO_ESTATE;
    itoi_worker_t *w = itoi_self_worker();
    if (!w || !w->cur) return ITO_ENOTULT;
    if (w->cur != itoi_rt.main_ult) return ITO_EPERM;
    /* main's thread-specific values: main is finishing. A destructor may call ito_finalize
     * again: refused, or the nested call would run (and free) main's value table under this
     * one and end the runtime beneath it (tests/test_finalize_in_dtor.c). Only main gets
     * here, so a plain flag does. */
    static bool in_dtors;
    if (in_dtors) return ITO_EDEADLK;
    in_dtors = true;
    itoi_ult_release_store(itoi_rt.main_ult);
    in_dtors = false;
    fini_naps = 0;
    uint64_t seen = progress(), seen_bg = background(), quiet_since = itoi_now_ns(), step = 20000, busy_at = 0;
    uint64_t cancel_seen = UINT64_MAX; /* the progress count at the last cancel pass */
    for (;;) {
        if (quiet()) {
            /* Close the door to foreign threads, wait for those inside, and look again:
             * one of them may have made work just before the door closed. */
            atomic_store(&itoi_rt.state, 2);
            while (atomic_load(&itoi_rt.foreign_in) > 0) sched_yield();
            if (quiet()) break;
            atomic_store(&itoi_rt.state, 1);
            continue;
        }
        w = itoi_self_worker();
        if (w->rq.n || atomic_load(&w->inbox_n) || atomic_load(&w->steal_n)) {
            itoi_yield_worker(w); /* worker 0 has work: run it */
            continue;
        }
        /* Progress: more than the runs of background work since the last progress (a
         * periodic timer's delivery is counted before its handler's run, so a look
         * between the two sees less, never more). */
        uint64_t now = itoi_now_ns(), p = progress(), bg = background();
        int64_t moved = (int64_t)(p - seen) - (int64_t)(bg - seen_bg);
        if (moved > 0 || p < seen || pending()) {
            seen = p;
            seen_bg = bg;
            quiet_since = now;
            busy_at = 0;
        } else if (now - quiet_since >= itoi_rt.finalize_grace_ns) {
            if (cancel_blocked() > 0) {
                /* Something was live: cancelled now, or a regular-file request that ends
                 * by itself. Look again soon after a pass that follows progress, but
                 * back off from pass to pass while nothing moves: a long fsync or O_DSYNC
                 * write with ITO_FINALIZE_GRACE_MS=0 (or past the grace) made main pass
                 * again and again, a third of a CPU for the whole wait (found by a
                 * finalize tester, 2026-12-04; test_io_finalize_slow_file). */
                if (p != cancel_seen) step = 20000;
                cancel_seen = p;
                quiet_since = now;
                busy_at = 0;
                itoi_fini_nap(step);
                step = step < 10000000 ? step * 2 : step;
                continue;
            }
            /* Nothing to cancel: give it 10 ms more of quiet before ITO_EBUSY, looking
             * again meanwhile. With a short grace (ITO_FINALIZE_GRACE_MS=0) the first look
             * could come before a ULT just started had posted its request, which the
             * next look cancels. */
            if (!busy_at) busy_at = now + 10000000;
            /* <= 0: only a timer device, about to deliver; an armed periodic timer device
             * will deliver too (a ULT may wait on its handler's entry) */
            /* A foreign thread inside a call (foreign_in) may have counted a unit it has
             * not queued yet (itoi_unit_ready: counted, then pushed to worker 0's inbox):
             * live work nobody can see for as long as the OS keeps that thread off the CPU.
             * Foreign calls never block inside the door (only wake-side calls are theirs),
             * so this only waits for it to come out. (Until 2026-12-06 finalize said
             * ITO_EBUSY with no thread blocked, 1 round in 800 with foreign threads calling
             * ito_continue under load; found by an outside tester, h66a.) */
            if (now < busy_at || live_work() <= 0 || background_armed() || atomic_load(&itoi_rt.foreign_in) > 0) {
                itoi_fini_nap(step);
                continue;
            }
            fprintf(stderr, "ito: ito_finalize: %lld thread(s) stay blocked on ito objects with nothing "
                            "left to wait for; the runtime stays up (ITO_EBUSY)\n", (long long)live_work());
            (void)ito_dump_threads(stderr); /* thread.h promises the list: state and what each waits on */
            resume_all();
            return ITO_EBUSY;
        }
        itoi_fini_nap(step);
        step = step < 10000000 ? step * 2 : step;
    }
    teardown(itoi_rt.nworkers);
    return ITO_OK;
}

int ito_worker_count(void)
{
    /* Inside the door: a foreign caller's read of nworkers never meets the next ito_init's
     * write (TSan reported the race with a pthread asking while main cycled the runtime). */
    ITOI_ANY_RETURN(ITO_ESTATE, itoi_rt.nworkers);
}

int ito_worker_id(void)
{
    itoi_worker_t *w = itoi_self_worker();
    return (w && w->cur) ? w->index : ITO_ENOTULT;
}

int ito_stats(ito_stats_t *out)
{
    if (!out) return ITO_EINVAL;
    bool in;
    if (itoi_any_enter(&in) != ITO_OK) return ITO_ESTATE;
    memset(out, 0, sizeof *out);
    for (int i = 0; i < itoi_rt.nworkers; i++) {
        itoi_worker_t *w = &itoi_rt.workers[i];
        out->created += atomic_load_explicit(&w->n_created, memory_order_relaxed);
        out->finished += atomic_load_explicit(&w->n_finished, memory_order_relaxed);
        out->switches += atomic_load_explicit(&w->n_switches, memory_order_relaxed);
        out->steals += atomic_load_explicit(&w->n_steals, memory_order_relaxed);
        out->sleeps += atomic_load_explicit(&w->n_sleeps, memory_order_relaxed);
        out->idles += atomic_load_explicit(&w->n_idles, memory_order_relaxed);
        out->idle_spin_ns += atomic_load_explicit(&w->n_spin_ns, memory_order_relaxed);
    }
    out->stacks_mapped = itoi_stack_mapped_total();
    out->stacks_live = itoi_stack_live();
    return itoi_any_leave(in, ITO_OK);
}
