/* ito_test.h: the shared helper of ito's C tests (one feature per test file).
 *
 * A test is a main() that calls CHECK/CHECK_EQ/CHECK_OK and ends with TEST_DONE().
 * A failed check prints file:line and the expression, and the test exits 1. */
#ifndef ITO_TEST_H
#define ITO_TEST_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <pthread.h>
#include <threads.h>
#include <time.h>

static int ito_test_failures;

#define CHECK(cond)                                                              \
    do {                                                                         \
        if (!(cond)) {                                                           \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
            ito_test_failures++;                                                 \
            exit(1);                                                             \
        }                                                                        \
    } while (0)

#define CHECK_EQ(a, b)                                                           \
    do {                                                                         \
        long long ito_a_ = (long long)(a), ito_b_ = (long long)(b);              \
        if (ito_a_ != ito_b_) {                                                  \
            fprintf(stderr, "%s:%d: CHECK_EQ failed: %s == %lld, %s == %lld\n",  \
                    __FILE__, __LINE__, #a, ito_a_, #b, ito_b_);                 \
            exit(1);                                                             \
        }                                                                        \
    } while (0)

/* For ito calls: the call must return ITO_OK; otherwise print its ito_strerror. */
#define CHECK_OK(call)                                                           \
    do {                                                                         \
        int ito_rc_ = (call);                                                    \
        if (ito_rc_ != 0) {                                                      \
            fprintf(stderr, "%s:%d: %s returned %d\n", __FILE__, __LINE__, #call, ito_rc_); \
            exit(1);                                                             \
        }                                                                        \
    } while (0)

#define TEST_DONE()                                                              \
    do {                                                                         \
        printf("ok %s\n", __FILE__);                                             \
        return ito_test_failures ? 1 : 0;                                        \
    } while (0)

/* CPU seconds (user + system) the process has used: for "a waiting thread costs no CPU". */
__attribute__((unused)) static double ito_test_cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
           ru.ru_stime.tv_usec / 1e6;
}

/* The pthread key pthread_key_create hands out next (the lowest free one): keys a library
 * took and never gave back push it up (test_dlclose_libito, test_dlclose_static_key). */
__attribute__((unused)) static unsigned ito_test_next_pthread_key(void)
{
    pthread_key_t k;
    CHECK_EQ(pthread_key_create(&k, NULL), 0);
    CHECK_EQ(pthread_key_delete(k), 0);
    return (unsigned)k;
}

#if defined(ITO_THREAD_H)
/* Create a ULT bound to worker `worker` (a test that places a waiter and its waker). */
__attribute__((unused)) static void ito_test_create_on(ito_thread_t *t, int worker, ito_fn_t fn, void *arg)
{
    ito_attr_t at;
    CHECK_OK(ito_attr_init(&at));
    at.worker = worker;
    CHECK_OK(ito_create(t, fn, arg, &at));
}
#endif

#ifdef CLOCK_MONOTONIC /* POSIX clocks: in tests that define _GNU_SOURCE */
/* CLOCK_MONOTONIC in nanoseconds. */
__attribute__((unused)) static uint64_t ito_test_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
/* A stress test's round count or time budget. A test that repeats a race many times runs
 * its full `rounds` on a quiet machine; on a loaded one (a parallel ctest, CPU hogs, a
 * sanitizer tree) where a round that hands over between threads can cost a scheduler
 * quantum, it stops once `seconds` of CLOCK_MONOTONIC since ito_test_budget_init are
 * spent, provided `min` rounds (at least 1) have run: below that it goes on whatever the
 * clock says, so it never passes with little or no work. A test's budgets add up to about
 * a third of its ctest limit (300 s). ITO_TEST_BUDGET_SCALE=<factor> in the environment
 * multiplies every budget (0: the minimum only, to see what a loaded run checks).
 *
 *     ito_test_budget_t b;
 *     ito_test_budget_init(&b, "mutex", 6000, 1500, 25);
 *     for (long i = 0; ito_test_budget_more(&b, i); i++) { ... one round ... }
 *
 * ito_test_budget_more says whether round `round` (0-based: the rounds done so far) runs;
 * when it says no, it prints how many rounds ran and why they stopped. */
typedef struct ito_test_budget {
    const char *what;
    long rounds, min;
    uint64_t start_ns, end_ns;
} ito_test_budget_t;

__attribute__((unused)) static void ito_test_budget_init(ito_test_budget_t *b, const char *what, long rounds,
                                                         long min, double seconds)
{
    CHECK(min >= 1 && min <= rounds);
    const char *scale = getenv("ITO_TEST_BUDGET_SCALE");
    if (scale && *scale) seconds *= atof(scale);
    b->what = what;
    b->rounds = rounds;
    b->min = min;
    b->start_ns = ito_test_now_ns();
    b->end_ns = b->start_ns + (uint64_t)(seconds > 0 ? seconds * 1e9 : 0);
}

__attribute__((unused)) static bool ito_test_budget_more(ito_test_budget_t *b, long round)
{
    if (round < b->min) return true;
    uint64_t now = ito_test_now_ns();
    if (round < b->rounds && now < b->end_ns) return true;
    double s = (double)(now - b->start_ns) / 1e9;
    if (round < b->rounds)
        printf("%s: %ld of %ld rounds in %.1f s (time budget spent; the minimum is %ld)\n", b->what, round,
               b->rounds, s, b->min);
    else
        printf("%s: %ld of %ld rounds in %.1f s\n", b->what, round, b->rounds, s);
    fflush(stdout);
    return false;
}

/* The calling kernel thread's CPU time in nanoseconds. */
__attribute__((unused)) static uint64_t ito_test_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Busy for ns nanoseconds of CLOCK_MONOTONIC (no scheduling point: a computing thread). */
__attribute__((unused)) static void ito_test_busy_ns(uint64_t ns)
{
    uint64_t t0 = ito_test_now_ns();
    while (ito_test_now_ns() - t0 < ns) {
    }
}

/* Adds to *ran the time since *last when the two looks are close together (< 200 us): the
 * time a thread that looks often ran, without the time it was switched out. */
__attribute__((unused)) static inline void ito_test_account(uint64_t *ran, uint64_t *last)
{
    uint64_t now = ito_test_now_ns();
    if (now - *last < 200000) *ran += now - *last;
    *last = now;
}

#ifdef ITO_PREEMPT_H
/* The runtime's preemption counters now (ito_preempt_stats; include ito/ito.h first). */
__attribute__((unused)) static inline ito_preempt_stats_t ito_test_pstats(void)
{
    ito_preempt_stats_t s;
    CHECK_OK(ito_preempt_stats(&s));
    return s;
}
#endif

/* A thread that acts once per round (rounds 1, 2, ... published in *go by the test's
 * main): waits until *go moves past *seen and returns the new round, or 0 once *stop is set. */
__attribute__((unused)) static inline int ito_test_next_round(atomic_int *go, atomic_int *stop, int *seen)
{
    while (!atomic_load(stop)) {
        int r = atomic_load(go);
        if (r != *seen) return *seen = r;
    }
    return 0;
}

#ifdef ITO_SYNC_H /* (the simulators' tests use this header without ito) */
/* A ULT body that waits on the ito_sem_t its argument points to (a thread that stays
 * blocked until the test posts it). */
__attribute__((unused)) static void *ito_test_sem_waiter(void *sem)
{
    CHECK_OK(ito_sem_wait((ito_sem_t *)sem));
    return NULL;
}
#endif

#ifdef _GNU_SOURCE /* cpu_set_t, sched_getcpu, pthread_setaffinity_np, opendir */
#include <dirent.h>
#include <sched.h>
/* The entries of a folder, "." and ".." not counted (/proc/self/fd: open descriptors;
 * /proc/self/task: threads); -1 if it cannot be read. */
__attribute__((unused)) static int ito_test_count_dir(const char *path)
{
    DIR *d = opendir(path);
    int n = 0;
    if (!d) return -1;
    for (struct dirent *e; (e = readdir(d));)
        if (e->d_name[0] != '.') n++;
    closedir(d);
    return n;
}
/* Runs child() in a child process whose stderr is collected into buf (cap bytes, NUL
 * ended); returns the child's wait status. The child exits 0 if child() returns 0, else 3
 * (a test of a fatal error expects it to die before). */
#include <sys/wait.h>
#include <unistd.h>
__attribute__((unused)) static int ito_test_child_stderr(int (*child)(void), char *buf, size_t cap)
{
    int p[2];
    CHECK_EQ(pipe(p), 0);
    fflush(NULL);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        dup2(p[1], 2);
        close(p[0]);
        _exit(child() == 0 ? 0 : 3);
    }
    close(p[1]);
    size_t n = 0;
    ssize_t r;
    while (n < cap - 1 && (r = read(p[0], buf + n, cap - 1 - n)) > 0) n += (size_t)r;
    buf[n] = 0;
    close(p[0]);
    int st = 0;
    CHECK_EQ(waitpid(pid, &st, 0), pid);
    return st;
}
/* Runs child() in a child process that must die reporting a stack overflow of the ULT
 * named `name` ("ito: fatal: stack overflow in ULT '<name>'"). */
__attribute__((unused)) static void ito_test_expect_overflow(int (*child)(void), const char *name)
{
    char buf[4096], want[128];
    snprintf(want, sizeof want, "stack overflow in ULT '%s'", name);
    int st = ito_test_child_stderr(child, buf, sizeof buf);
    int died = WIFSIGNALED(st) || (WIFEXITED(st) && WEXITSTATUS(st) != 0);
    if (!died || !strstr(buf, want)) fprintf(stderr, "child status %#x, stderr:\n%s\n", st, buf);
    CHECK(died);
    CHECK(strstr(buf, want) != NULL);
}
/* The process's address space in bytes (VmSize), -1 if unknown. */
__attribute__((unused)) static long ito_test_vm_bytes(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long v = -1;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "VmSize:", 7)) sscanf(line + 7, "%ld", &v);
    if (f) fclose(f);
    return v < 0 ? -1 : v * 1024;
}
#if defined(ITO_SYNC_H) && defined(ITO_THREAD_H)
/* Leaves n free stacks of the default size in worker `worker`'s own pool: n ULTs bound
 * there, all on their stacks at once (each waits until the caller has seen all start),
 * then ended. (Include ito/ito.h first.) */
typedef struct ito_test_pool_fill {
    ito_sem_t hold;
    atomic_int started;
} ito_test_pool_fill_t;

__attribute__((unused)) static void *ito_test_pool_fill_ult(void *arg)
{
    ito_test_pool_fill_t *f = (ito_test_pool_fill_t *)arg;
    atomic_fetch_add(&f->started, 1);
    CHECK_OK(ito_sem_wait(&f->hold));
    return NULL;
}

__attribute__((unused)) static void ito_test_fill_pool(int worker, int n)
{
    static ito_test_pool_fill_t f;
    ito_thread_t *ts = (ito_thread_t *)calloc((size_t)n, sizeof *ts);
    CHECK(ts != NULL);
    CHECK_OK(ito_sem_init(&f.hold, 0));
    atomic_store(&f.started, 0);
    for (int i = 0; i < n; i++) ito_test_create_on(&ts[i], worker, ito_test_pool_fill_ult, &f);
    while (atomic_load(&f.started) < n) CHECK_OK(ito_yield());
    for (int i = 0; i < n; i++) CHECK_OK(ito_sem_post(&f.hold));
    for (int i = 0; i < n; i++) CHECK_OK(ito_join(ts[i], NULL));
    CHECK_OK(ito_sem_destroy(&f.hold));
    free(ts);
}

/* RLIMIT_AS at what the process uses now plus `slack` bytes; *old gets the limit before. */
__attribute__((unused)) static void ito_test_limit_as(struct rlimit *old, long slack)
{
    struct rlimit lim;
    CHECK_OK(getrlimit(RLIMIT_AS, old));
    lim.rlim_cur = (rlim_t)(ito_test_vm_bytes() + slack);
    lim.rlim_max = old->rlim_max;
    CHECK_OK(setrlimit(RLIMIT_AS, &lim));
}

/* Under RLIMIT_AS at what the process uses now plus 4 MiB (no room for a region of
 * stacks; *old gets the limit before): ULTs running fn, bound to `worker`, into ts[0..max)
 * until ito_create fails, which must be with ITO_ENOMEM. Returns how many were made. */
__attribute__((unused)) static size_t ito_test_create_until_enomem(struct rlimit *old, ito_thread_t *ts, size_t max,
                                                                    int worker, ito_fn_t fn)
{
    ito_test_limit_as(old, 4L << 20);
    ito_attr_t a;
    CHECK_OK(ito_attr_init(&a));
    a.worker = worker;
    size_t n = 0;
    int rc = ITO_OK;
    while (n < max && (rc = ito_create(&ts[n], fn, NULL, &a)) == ITO_OK) n++;
    printf("%zu ULTs made on worker %d, then %d\n", n, worker, rc);
    CHECK_EQ(rc, ITO_ENOMEM);
    return n;
}
#endif
/* CPU hogs: foreign threads that spin on one CPU, so that the OS deschedules a worker's
 * thread pinned there for longer than a quantum at a time. ito_test_hogs_start makes n (at
 * most 8), which wait until ito_test_hogs_pin names the CPU; `on` counts those spinning. */
typedef struct ito_test_hogs {
    pthread_t t[8];
    int n;
    _Atomic int stop, cpu, on;
} ito_test_hogs_t;
__attribute__((unused)) static void *ito_test_hog_body(void *arg)
{
    ito_test_hogs_t *h = arg;
    int cpu;
    while ((cpu = atomic_load(&h->cpu)) < 0 && !atomic_load(&h->stop)) sched_yield();
    if (cpu >= 0) {
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(cpu, &one);
        if (pthread_setaffinity_np(pthread_self(), sizeof one, &one) != 0) abort();
    }
    atomic_fetch_add(&h->on, 1);
    volatile unsigned long k = 0;
    while (!atomic_load_explicit(&h->stop, memory_order_relaxed)) k++;
    return NULL;
}
__attribute__((unused)) static void ito_test_hogs_start(ito_test_hogs_t *h, int n)
{
    h->n = n;
    atomic_store(&h->stop, 0);
    atomic_store(&h->cpu, -1);
    atomic_store(&h->on, 0);
    for (int i = 0; i < n; i++)
        if (pthread_create(&h->t[i], NULL, ito_test_hog_body, h) != 0) abort();
}
/* Pins the calling thread and the hogs to the CPU it runs on; *old gets its affinity. */
__attribute__((unused)) static void ito_test_hogs_pin(ito_test_hogs_t *h, cpu_set_t *old)
{
    cpu_set_t one;
    int cpu = sched_getcpu();
    if (sched_getaffinity(0, sizeof *old, old) != 0 || cpu < 0) abort();
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    if (sched_setaffinity(0, sizeof one, &one) != 0) abort();
    atomic_store(&h->cpu, cpu);
}
/* Pins the calling thread (and the threads it starts from now on, such as ito_init's
 * workers) to the first CPU it may run on; *old gets its affinity. */
__attribute__((unused)) static void ito_test_pin_first_cpu(cpu_set_t *old)
{
    cpu_set_t one;
    if (sched_getaffinity(0, sizeof *old, old) != 0) abort();
    CPU_ZERO(&one);
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, old)) {
            CPU_SET(c, &one);
            break;
        }
    if (sched_setaffinity(0, sizeof one, &one) != 0) abort();
}
__attribute__((unused)) static void ito_test_hogs_stop(ito_test_hogs_t *h)
{
    atomic_store(&h->stop, 1);
    for (int i = 0; i < h->n; i++) pthread_join(h->t[i], NULL);
}
#endif
#endif

/* The sanitizer trees (slower: stress tests run fewer rounds there). Signal-mode
 * preemption is refused in them (preempt.h). */
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__) || defined(ITOI_ASAN) || defined(ITOI_TSAN)
#define ITO_TEST_SANITIZED 1
#else
#define ITO_TEST_SANITIZED 0
#endif
#define ITO_TEST_SIGNAL_MODE_OK (!ITO_TEST_SANITIZED)

/* The sanitizer trees reserve terabytes of shadow memory, so RLIMIT_AS cannot be lowered
 * there: a test of address-space exhaustion begins main with this, and passes at once in
 * those trees, saying so. */
#define ITO_TEST_NEEDS_RLIMIT_AS()                                               \
    do {                                                                         \
        if (ITO_TEST_SANITIZED) {                                                \
            printf("sanitizer tree: no RLIMIT_AS, nothing to check\n");          \
            TEST_DONE();                                                         \
        }                                                                        \
    } while (0)

/* rc: what ito_preempt_enable returned for signal mode. In the sanitizer trees, which
 * refuse that mode (preempt.h), checks the documented refusal, finalizes and passes. */
#define ITO_TEST_DONE_IF_SIGNAL_REFUSED(rc)                                      \
    do {                                                                         \
        if (!ITO_TEST_SIGNAL_MODE_OK) {                                          \
            CHECK_EQ((rc), ITO_ENOSYS);                                          \
            CHECK_OK(ito_finalize());                                            \
            TEST_DONE();                                                         \
        }                                                                        \
    } while (0)

#if defined(ITO_PREEMPT_H)
/* Starts the runtime with one worker and signal preemption at quantum_us: 1. In the
 * sanitizer trees, which refuse signal mode (preempt.h), checks that refusal and returns 0
 * (the runtime runs without preemption). */
__attribute__((unused)) static int ito_test_one_worker_signal_preempt(unsigned quantum_us)
{
    CHECK_OK(ito_init(&(ito_config_t){.workers = 1}));
    ito_preempt_config_t cfg = {.quantum_us = quantum_us, .mode = ITO_PREEMPT_SIGNAL};
    if (!ITO_TEST_SIGNAL_MODE_OK) {
        CHECK_EQ(ito_preempt_enable(&cfg), ITO_ENOSYS);
        return 0;
    }
    CHECK_OK(ito_preempt_enable(&cfg));
    return 1;
}
#endif

#if defined(ITO_PREEMPT_H)
/* Starts the runtime (cfg) and signal preemption at quantum_us: 1. In the sanitizer trees,
 * which refuse signal mode (preempt.h), checks that refusal, finalizes and returns 0. */
__attribute__((unused, no_instrument_function)) static int ito_test_start_signal_preempt(const ito_config_t *cfg,
                                                                                       unsigned quantum_us)
{
    CHECK_OK(ito_init(cfg));
    ito_preempt_config_t pc = {.quantum_us = quantum_us, .mode = ITO_PREEMPT_SIGNAL};
    int rc = ito_preempt_enable(&pc);
    if (!ITO_TEST_SIGNAL_MODE_OK) {
        CHECK_EQ(rc, ITO_ENOSYS);
        CHECK_OK(ito_finalize());
        return 0;
    }
    CHECK_OK(rc);
    return 1;
}
#endif

/* A program's own allocator in the executable (signal preemption counts it as the
 * program's code), which spins tens of microseconds per call while *flag is set: defines
 * malloc, calloc, realloc and free over glibc's. Not in the sanitizer trees, whose
 * runtimes define the allocator. */
#if ITO_TEST_SANITIZED
#define ITO_TEST_DEFINE_SLOW_MALLOC(flag)
#else
#define ITO_TEST_DEFINE_SLOW_MALLOC(flag)                                                         \
    extern void *__libc_malloc(size_t);                                                           \
    extern void *__libc_calloc(size_t, size_t);                                                   \
    extern void *__libc_realloc(void *, size_t);                                                  \
    extern void __libc_free(void *);                                                              \
    __attribute__((no_instrument_function)) static void ito_test_slow_alloc(void)                 \
    {                                                                                             \
        if (atomic_load_explicit(&(flag), memory_order_relaxed))                                  \
            for (volatile int i_ = 0; i_ < 30000; i_++) {                                         \
            }                                                                                     \
    }                                                                                             \
    __attribute__((no_instrument_function)) void *malloc(size_t n)                                \
    {                                                                                             \
        ito_test_slow_alloc();                                                                    \
        return __libc_malloc(n);                                                                  \
    }                                                                                             \
    __attribute__((no_instrument_function)) void *calloc(size_t n, size_t m)                      \
    {                                                                                             \
        ito_test_slow_alloc();                                                                    \
        return __libc_calloc(n, m);                                                               \
    }                                                                                             \
    __attribute__((no_instrument_function)) void *realloc(void *p, size_t n)                      \
    {                                                                                             \
        ito_test_slow_alloc();                                                                    \
        return __libc_realloc(p, n);                                                              \
    }                                                                                             \
    __attribute__((no_instrument_function)) void free(void *p) { __libc_free(p); }
#endif

/* A loop of n iterations that the compiler keeps (a short stretch of computing). */
__attribute__((unused)) static void ito_test_spin(unsigned n)
{
    for (volatile unsigned i = 0; i < n; i++) {
    }
}

/* Sleeps the calling kernel thread (not a ULT wait: a ULT's worker sleeps with it), the
 * whole time even if a signal interrupts it. */
__attribute__((unused)) static void ito_test_sleep_us(long us)
{
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
    while (thrd_sleep(&ts, &ts) == -1) { /* -1: a signal came; ts holds what is left */
    }
}

/* A watchdog for tests whose failure is a hang (a finalize or a lock that never returns):
 * a thread of its own fails the test, printing `what`, unless *done is set within
 * `seconds`. Polls every 100 ms; the thread is detached and ends with the process. */
typedef struct {
    atomic_int *done;
    int seconds;
    const char *what;
} ito_test_watchdog_t;
static void *ito_test_watchdog_main(void *arg)
{
    ito_test_watchdog_t *w = arg;
    for (int i = 0; i < w->seconds * 10 && !atomic_load(w->done); i++) ito_test_sleep_us(100000);
    if (!atomic_load(w->done)) {
        fprintf(stderr, "watchdog: %s (nothing ended it in %d s)\n", w->what, w->seconds);
        fflush(stderr);
        _Exit(1);
    }
    return NULL;
}
__attribute__((unused)) static void ito_test_watchdog(atomic_int *done, int seconds, const char *what)
{
    static ito_test_watchdog_t w;
    w = (ito_test_watchdog_t){done, seconds, what};
    /* A pthread, not thrd_create: TSan does not intercept C11's thrd_create (glibc
     * starts it through an internal entry), and the watchdog thread then crashed in
     * __tsan_func_entry, failing every test that used it in the TSan tree. */
    pthread_t t;
    CHECK(pthread_create(&t, NULL, ito_test_watchdog_main, &w) == 0);
    CHECK(pthread_detach(t) == 0);
}

/* The process's kernel mappings now (lines of /proc/self/maps). */
__attribute__((unused)) static int ito_test_count_mappings(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    CHECK(f != NULL);
    int n = 0, c;
    while ((c = fgetc(f)) != EOF) n += c == '\n';
    fclose(f);
    return n;
}

#ifdef ITO_THREAD_H /* the tests of the runtime (the simulators' tests use the checks only) */
/* Starts fn(arg) as a ULT on main's worker (0) and yields until it has run up to where it
 * blocks: for "destroy with a waiter is ITO_EBUSY" (a destroy that succeeded would end
 * the object, and the waiter's call would then be ITO_EINVAL). */
__attribute__((unused)) static void ito_test_start_parked(ito_thread_t *t, void *(*fn)(void *), void *arg)
{
    ito_test_create_on(t, 0, fn, arg);
    for (int i = 0; i < 3; i++) CHECK_OK(ito_yield());
}

/* Runs a(NULL) and b(NULL) as ULTs on worker 0 (main's, which sleeps meanwhile) for ns
 * nanoseconds, then sets *stop and joins both. */
__attribute__((unused)) static void ito_test_run_pair_on0(void *(*a)(void *), void *(*b)(void *), uint64_t ns,
                                                          atomic_int *stop)
{
    ito_thread_t ta, tb;
    atomic_store(stop, 0);
    ito_test_create_on(&ta, 0, a, NULL);
    ito_test_create_on(&tb, 0, b, NULL);
    CHECK_OK(ito_sleep_ns(ns));
    atomic_store(stop, 1);
    CHECK_OK(ito_join(ta, NULL));
    CHECK_OK(ito_join(tb, NULL));
}

/* Runs body(NULL) in one ULT and joins it; ito_test_main_ult: the same inside ito_init(cfg)
 * and ito_finalize (a test whose body must run in a ULT). Not instrumented: test_regwin_hooks
 * (-finstrument-functions) calls them from its uninstrumented main. */
__attribute__((unused, no_instrument_function)) static void ito_test_run_in_ult(void *(*body)(void *))
{
    ito_thread_t t;
    CHECK_OK(ito_create(&t, body, NULL, NULL));
    CHECK_OK(ito_join(t, NULL));
}
__attribute__((unused, no_instrument_function)) static void ito_test_main_ult(const ito_config_t *cfg,
                                                                             void *(*body)(void *))
{
    CHECK_OK(ito_init(cfg));
    ito_test_run_in_ult(body);
    CHECK_OK(ito_finalize());
}

/* Runs a(NULL) and b(NULL) as two ULTs (b created first) and joins both. */
__attribute__((unused)) static void ito_test_run_two(void *(*a)(void *), void *(*b)(void *))
{
    ito_thread_t ta, tb;
    CHECK_OK(ito_create(&tb, b, NULL, NULL));
    CHECK_OK(ito_create(&ta, a, NULL, NULL));
    CHECK_OK(ito_join(ta, NULL));
    CHECK_OK(ito_join(tb, NULL));
}

#ifdef CLOCK_MONOTONIC
/* A file system's server that answers late, for tests that wrap a libc call with -Wl,--wrap
 * (test_io_stat_no_sync, test_io_close_off_worker): the wrapped call on the test's file
 * waits (ito_test_server_round_trip) until another ULT of the caller's worker has run, for
 * at most 2 s. A worker that blocks in the call never runs that ULT: the wait times out and
 * sets ito_test_srv_stalled. ito_test_server_round runs the caller and that other ULT on
 * worker 1 (main, on worker 0, only joins); the caller sets ito_test_srv_in_call before its
 * call. */
static _Atomic int ito_test_srv_answered; /* the other ULT of the caller's worker has run */
static _Atomic int ito_test_srv_stalled;  /* a call waited out its bound: its thread was blocked */
static _Atomic int ito_test_srv_in_call;  /* the caller is in its call */
__attribute__((unused)) static void ito_test_server_round_trip(void)
{
    uint64_t end = ito_test_now_ns() + 2000000000u;
    while (!atomic_load(&ito_test_srv_answered)) {
        if (ito_test_now_ns() > end) {
            atomic_store(&ito_test_srv_stalled, 1);
            return;
        }
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    }
}
__attribute__((unused)) static void *ito_test_server_other(void *arg)
{
    (void)arg;
    while (!atomic_load(&ito_test_srv_in_call)) ito_yield();
    atomic_store(&ito_test_srv_answered, 1);
    return NULL;
}
/* Whether the caller's worker blocked in the call (the server's wait timed out). */
__attribute__((unused)) static bool ito_test_server_round(void *(*caller)(void *))
{
    atomic_store(&ito_test_srv_answered, 0);
    atomic_store(&ito_test_srv_in_call, 0);
    atomic_store(&ito_test_srv_stalled, 0);
    ito_thread_t c, o;
    ito_test_create_on(&c, 1, caller, NULL);
    ito_test_create_on(&o, 1, ito_test_server_other, NULL);
    CHECK_OK(ito_join(c, NULL));
    CHECK_OK(ito_join(o, NULL));
    return atomic_load(&ito_test_srv_stalled) != 0;
}
#endif
#endif

#if defined(ITO_THREAD_H) && defined(ITO_TIME_H)
/* The churn of the stale-handle tests (test_join_stale_life, test_cancel_stale_life), a
 * ULT on worker 0 while a ULT on another worker uses *stale: until secs seconds have
 * passed or failed() is true, rounds of 64 of: T (ito_test_stale_t(t_arg)) created
 * detached on worker 0 and published in *stale, a yield (T runs and ends: its descriptor
 * is free), then reuse(bound) (bound: attributes for worker 0) puts a new ULT on that
 * descriptor; each round is counted in *rounds; *stop is set at the end. */
typedef struct {
    double secs;
    void *t_arg;
    void (*reuse)(const ito_attr_t *bound);
    int (*failed)(void);
    _Atomic(ito_thread_t) *stale;
    _Atomic long *rounds;
    _Atomic int *stop;
} ito_test_churn_t;
__attribute__((unused)) static void *ito_test_stale_t(void *a)
{
    ito_test_spin(3000); /* T's life: the stale handle validates now */
    return a;
}
__attribute__((unused)) static void *ito_test_stale_churn(void *arg)
{
    const ito_test_churn_t *c = (const ito_test_churn_t *)arg;
    ito_attr_t det, bound;
    ito_attr_init(&det);
    det.flags = ITO_ATTR_DETACHED;
    det.worker = 0;
    ito_attr_init(&bound);
    bound.worker = 0;
    uint64_t end = ito_deadline_in((uint64_t)(c->secs * 1e9));
    while (ito_now_ns() < end && !c->failed()) {
        for (int k = 0; k < 64; k++) {
            ito_thread_t t;
            CHECK_OK(ito_create(&t, ito_test_stale_t, c->t_arg, &det));
            atomic_store(c->stale, t);
            ito_yield(); /* T runs and ends: its descriptor is free */
            c->reuse(&bound);
            atomic_fetch_add(c->rounds, 1);
        }
    }
    atomic_store(c->stop, 1);
    return NULL;
}
#endif

#if defined(ITO_ZWT_H)
/* Runs fn(0) on a foreign pthread and fn(1) in a user-mode ZWT, each to its end, from a
 * ULT: for the calls that refuse those contexts (test_notult_codes, test_regwin_codes). */
typedef struct {
    void (*fn)(int zwt);
    atomic_int done;
} ito_test_ctx_t;
__attribute__((unused)) static void *ito_test_ctx_foreign(void *arg)
{
    ((ito_test_ctx_t *)arg)->fn(0);
    return NULL;
}
__attribute__((unused)) static void ito_test_ctx_zwt(ito_frame_t *f, int e, uint64_t v)
{
    (void)e;
    (void)v;
    ito_test_ctx_t *c = *(ito_test_ctx_t **)ito_frame_data(f);
    c->fn(1);
    atomic_store(&c->done, 1);
}
__attribute__((unused)) static void ito_test_in_other_contexts(void (*fn)(int zwt))
{
    ito_test_ctx_t c = {.fn = fn};
    pthread_t pt;
    CHECK(pthread_create(&pt, NULL, ito_test_ctx_foreign, &c) == 0);
    CHECK(pthread_join(pt, NULL) == 0);
    ito_frame_t *f;
    CHECK_OK(ito_frame_create(&f, 1, sizeof(ito_test_ctx_t *)));
    *(ito_test_ctx_t **)ito_frame_data(f) = &c;
    CHECK_OK(ito_entry_set(f, 0, ito_test_ctx_zwt, 1, ITO_MODE_USER));
    CHECK_OK(ito_continue(f, 0));
    while (!atomic_load(&c.done)) CHECK_OK(ito_sleep_ns(1000000));
    while (ito_frame_destroy(f) == ITO_EBUSY) CHECK_OK(ito_yield());
}

/* Opens a device on an eventfd for a frame's one user-mode entry (handler: may be NULL),
 * closes it and destroys the frame (yielding while it is busy): the runtime's device table
 * is set up (and the devices' hooks registered) on the way (test_zwt_device_poll_mode_reset,
 * test_hooks_once, test_preempt_own_malloc). */
__attribute__((unused)) static void ito_test_device_open_close(ito_zwt_fn handler)
{
    ito_frame_t *f;
    ito_device_t *d;
    CHECK_OK(ito_frame_create(&f, 1, 0));
    CHECK_OK(ito_entry_set(f, 0, handler, 1, ITO_MODE_USER));
    CHECK_OK(ito_device_eventfd(f, 0, &d));
    CHECK_OK(ito_device_close(d));
    int rc;
    while ((rc = ito_frame_destroy(f)) == ITO_EBUSY) CHECK_OK(ito_yield());
    CHECK_OK(rc);
}
#endif

#if defined(ITO_ZWT_H) && defined(ITO_PREEMPT_H)
/* The rounds of test_preempt_own_malloc and test_preempt_psafe_callout, whose programs
 * define an allocator that spins while *slow is set: in fresh runtimes (so that stack
 * regions are mapped again) under a 100 us quantum, ULTs A and B on worker 0 each make the
 * runtime's first ZWT device (its table is allocated under the device table's lock) and
 * create and join ULTs of several stack sizes (a stack region is allocated under its
 * class's lock). A hang is the failure: the caller runs a watchdog. */
static void ito_test_own_malloc_handler(ito_frame_t *f, int entry, uint64_t value)
{
    (void)f;
    (void)entry;
    (void)value;
}
static void *ito_test_own_malloc_leaf(void *arg) { return arg; }
static void *ito_test_own_malloc_creator(void *arg)
{
    (void)arg;
    ito_test_device_open_close(ito_test_own_malloc_handler);
    for (int c = 0; c < 7; c++) {
        ito_attr_t at;
        CHECK_OK(ito_attr_init(&at));
        at.stack_size = (size_t)16384 << c;
        for (int i = 0; i < 20; i++) {
            ito_thread_t t;
            CHECK_OK(ito_create(&t, ito_test_own_malloc_leaf, NULL, &at));
            CHECK_OK(ito_join(t, NULL));
        }
    }
    return NULL;
}
__attribute__((unused)) static void ito_test_own_malloc_rounds(atomic_int *slow)
{
    for (int round = 0; round < 60; round++) {
        if (!ito_test_start_signal_preempt(&(ito_config_t){.workers = 1 + round % 2}, 100)) break;
        atomic_store(slow, 1);
        ito_thread_t a, b;
        ito_test_create_on(&a, 0, ito_test_own_malloc_creator, NULL);
        ito_test_create_on(&b, 0, ito_test_own_malloc_creator, NULL);
        CHECK_OK(ito_join(a, NULL));
        CHECK_OK(ito_join(b, NULL));
        atomic_store(slow, 0);
        CHECK_OK(ito_preempt_disable());
        CHECK_OK(ito_finalize());
    }
}
#endif

#if defined(ITO_COOP_H)
#include <stdatomic.h>
/* A ULT that only switches where ito-cc would let it (ITO_COOP_POINT: the flag check and
 * the yield), counting its rounds until *stop (test_preempt_flag, test_preempt_idle). */
typedef struct {
    _Atomic int *stop;
    _Atomic long progress;
} ito_test_spinner_t;
/* The check in a function of its own: a ULT that moves to another worker inside the loop
 * would otherwise have TSan report its checks against the first worker's flag (coop.h). */
__attribute__((noinline, unused)) static void ito_test_coop_point(void) { ITO_COOP_POINT(); }
static inline void *ito_test_coop_spin(void *arg)
{
    ito_test_spinner_t *s = arg;
    while (!atomic_load_explicit(s->stop, memory_order_relaxed)) {
        atomic_fetch_add_explicit(&s->progress, 1, memory_order_relaxed);
        ito_test_coop_point();
    }
    return NULL;
}
/* The flavours of compiled yield a test takes (ito_test_coop_due_yield): the ABI and the
 * full-save yield with the flag set, the minimal one with the flag set, and the ABI yield
 * with the budget expired (test_coop_vfork, test_coop_in_signal_handler). */
enum { ITO_TEST_COOP_ABI, ITO_TEST_COOP_FULL, ITO_TEST_COOP_MIN, ITO_TEST_COOP_BUDGET, ITO_TEST_COOP_FLAVOURS };
__attribute__((unused)) static const char *const ito_test_coop_names[ITO_TEST_COOP_FLAVOURS] = {"abi", "full", "min",
                                                                                             "budget"};
/* A compiled yield point whose yield is due (the flag set, or the budget expired), taken
 * in the given flavour. */
__attribute__((noinline, unused)) static void ito_test_coop_due_yield(int flavour)
{
    switch (flavour) {
    case ITO_TEST_COOP_ABI: ito_coop_flag = 1; ito_coop_yield_abi(); break;
    case ITO_TEST_COOP_FULL: ito_coop_flag = 1; ito_coop_yield_full(); break;
    case ITO_TEST_COOP_MIN: ito_coop_flag = 1; ITO_COOP_YIELD_MIN(); break;
    default: ito_coop_budget = -1; ito_coop_yield_abi(); break;
    }
}
#endif

#if defined(ITO_COOP_H) && defined(CLOCK_MONOTONIC)
/* Busy for ns nanoseconds of CLOCK_MONOTONIC, taking a compiled yield point
 * (ito_test_coop_point) after each look at the clock. */
__attribute__((unused)) static void ito_test_coop_busy_ns(uint64_t ns)
{
    uint64_t t0 = ito_test_now_ns();
    while (ito_test_now_ns() - t0 < ns) ito_test_coop_point();
}
/* The loop of a ULT that adds up the time it runs (ito_test_account) in *ran until *stop
 * is set, taking a compiled yield point after each look when `coop` is set (FLAG mode;
 * in signal mode the ticks switch it without one): test_gang_debt and
 * test_preempt_gang_region_hold's group without regions. */
__attribute__((unused)) static void ito_test_account_until(uint64_t *ran, _Atomic int *stop, int coop)
{
    uint64_t last = ito_test_now_ns();
    while (!atomic_load(stop)) {
        ito_test_account(ran, &last);
        if (coop) ito_test_coop_point();
    }
}
#endif

#if defined(ITO_THREAD_H)
/* The runtime's context switches so far (ito_stats): a test that a path does not switch
 * (a spin where a park belongs) compares two readings. */
__attribute__((unused)) static uint64_t ito_test_switches(void)
{
    ito_stats_t st;
    CHECK_OK(ito_stats(&st));
    return st.switches;
}
#endif


/* A process out of descriptors: every number below `limit` is taken (by /dev/null opened
 * into fill[], at most `limit` of them) but the `spare` highest, and RLIMIT_NOFILE is
 * lowered to `limit` (*old keeps the limit before). Returns how many fill[] holds; give
 * them back with ito_test_fds_restore. */
#if defined(_GNU_SOURCE) || (defined(_POSIX_C_SOURCE) && _POSIX_C_SOURCE >= 200809L) /* O_CLOEXEC */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
__attribute__((unused)) static int ito_test_fds_exhaust(int *fill, int limit, int spare, struct rlimit *old)
{
    CHECK_EQ(getrlimit(RLIMIT_NOFILE, old), 0);
    int nf = 0;
    for (int f; (f = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0;) {
        if (f >= limit) {
            close(f);
            break;
        }
        fill[nf++] = f;
    }
    for (; spare > 0 && nf > 0; spare--) close(fill[--nf]);
    struct rlimit low = {.rlim_cur = (rlim_t)limit, .rlim_max = old->rlim_max};
    CHECK_EQ(setrlimit(RLIMIT_NOFILE, &low), 0);
    return nf;
}

__attribute__((unused)) static void ito_test_fds_restore(int *fill, int nf, const struct rlimit *old)
{
    for (int i = 0; i < nf; i++) close(fill[i]);
    CHECK_EQ(setrlimit(RLIMIT_NOFILE, old), 0);
}
#endif

#if defined(ITO_THREAD_H) && (defined(_GNU_SOURCE) || (defined(_POSIX_C_SOURCE) && _POSIX_C_SOURCE >= 200809L))
/* One ULT on each of workers 0..workers-1 (at most 64) runs fn((void *)(intptr_t)i) while the
 * process is out of descriptors (ito_test_fds_exhaust to `limit`, at most 256, none spare: an
 * open says EMFILE, checked first); all are joined, then the descriptors and the limit are
 * given back. */
__attribute__((unused)) static void ito_test_each_worker_at_fd_limit(int workers, int limit, ito_fn_t fn)
{
    CHECK(workers > 0 && workers <= 64 && limit > 0 && limit <= 256);
    struct rlimit old;
    int fill[256], nf = ito_test_fds_exhaust(fill, limit, 0, &old);
    CHECK(open("/dev/null", O_RDONLY | O_CLOEXEC) < 0 && errno == EMFILE);
    ito_thread_t t[64];
    for (int i = 0; i < workers; i++) ito_test_create_on(&t[i], i, fn, (void *)(intptr_t)i);
    for (int i = 0; i < workers; i++) CHECK_OK(ito_join(t[i], NULL));
    ito_test_fds_restore(fill, nf, &old);
}
#endif

/* A thread body that stores 1 in the _Atomic int arg points to: whether it has run. */
__attribute__((unused)) static void *ito_test_mark_ran(void *arg)
{
    atomic_store((_Atomic int *)arg, 1);
    return NULL;
}

/* The backends of split-phase calls every I/O test runs on, io_uring first (index 0). */
#define ITO_TEST_NBACKENDS 2
__attribute__((unused)) static const char *const ito_test_backends[ITO_TEST_NBACKENDS] = {"uring", "sync"};

#if defined(ITO_SYSCALL_H) && (defined(_GNU_SOURCE) || defined(_POSIX_C_SOURCE))
/* Run round(backend) once per backend of split-phase calls ("uring", then "sync"; an
 * unavailable io_uring falls back to sync), each inside its own ito_init with `workers`
 * workers and ito_finalize. */
__attribute__((unused)) static void ito_test_each_backend(int workers, void (*round)(const char *backend))
{
    for (int b = 0; b < ITO_TEST_NBACKENDS; b++) {
        setenv("ITO_WSC_BACKEND", ito_test_backends[b], 1);
        CHECK_OK(ito_init(&(ito_config_t){.workers = workers}));
        round(ito_test_backends[b]);
        CHECK_OK(ito_finalize());
    }
    unsetenv("ITO_WSC_BACKEND");
}

/* The same, the round being body run in one ULT and joined. */
static void *(*ito_test_round_body)(void *);
__attribute__((unused)) static void ito_test_round_in_ult(const char *backend)
{
    (void)backend;
    ito_test_run_in_ult(ito_test_round_body);
}
__attribute__((unused)) static void ito_test_each_backend_ult(int workers, void *(*body)(void *))
{
    ito_test_round_body = body;
    ito_test_each_backend(workers, ito_test_round_in_ult);
}
#endif

#if defined(ITO_SYSCALL_H)
#include <errno.h>
#include <poll.h>
#include <stdatomic.h>
#include <unistd.h>
/* A ULT waiting in ito_recv on fd (ito_test_recv_waiter's argument): *parked counts the
 * waiters that reached their receive; got says how the wait ended: 1 a byte, 2 EBADF
 * (the descriptor was closed under it), 3 anything else. */
typedef struct ito_test_recv_wait {
    int fd;
    _Atomic int *parked;
    _Atomic int got;
} ito_test_recv_wait_t;

/* Set up worker `worker`'s common area and its readiness epoll (its io_uring and eventfd,
 * or its epoll on the sync backend, are made at ito_init; until 2026-12-07 they were made
 * lazily by its first request and its first readiness wait and took the lowest free
 * descriptor numbers), so that a test's later closes cannot hand those numbers to it. (A poll of no descriptor made no epoll: test_io_poll_close's
 * first sync round once had its poll take the socket number just closed, 2026-12-03.) */
__attribute__((unused)) static void *ito_test_warm_(void *arg)
{
    (void)arg;
    int pp[2];
    CHECK_EQ(pipe(pp), 0);
    struct pollfd q = {.fd = pp[0], .events = POLLIN};
    CHECK_EQ(ito_poll(&q, 1, 1), 0); /* empty: a readiness wait that times out */
    close(pp[0]);
    close(pp[1]);
    return NULL;
}
__attribute__((unused)) static void ito_test_warm_worker(int worker)
{
    ito_thread_t t;
    ito_test_create_on(&t, worker, ito_test_warm_, NULL);
    CHECK_OK(ito_join(t, NULL));
}

/* n one-byte round trips through the pipe p (write p[1], read p[0]) with ito_write and
 * ito_read, from a ULT. */
__attribute__((unused)) static void ito_test_pipe_round_trips(const int p[2], int n)
{
    for (int k = 0; k < n; k++) {
        char c = 0;
        CHECK_EQ(ito_write(p[1], "x", 1), 1);
        CHECK_EQ(ito_read(p[0], &c, 1), 1);
        CHECK_EQ(c, 'x');
    }
}

__attribute__((unused)) static void *ito_test_recv_waiter(void *arg)
{
    ito_test_recv_wait_t *x = arg;
    char b[4];
    atomic_fetch_add(x->parked, 1);
    ssize_t r = ito_recv(x->fd, b, sizeof b, 0);
    atomic_store(&x->got, r == 1 ? 1 : (r < 0 && errno == EBADF) ? 2 : 3);
    return NULL;
}
#endif

#if defined(ITO_REGWIN_H)
/* Installs `scheme` with `windows` windows (the rest the defaults) for the next attach. */
__attribute__((unused, no_instrument_function)) static void ito_test_regwin_configure(int scheme, int windows)
{
    ito_regwin_config_t cfg;
    CHECK_OK(ito_regwin_config_init(&cfg));
    cfg.scheme = scheme;
    cfg.windows = windows;
    CHECK_OK(ito_regwin_configure(&cfg));
}
#endif

#if defined(ITO_SPAWN_H)
#include <stdatomic.h>
#include <stdint.h>
/* In a thread of ito_create_many(n, ...): its index, checked below n and marked in
 * seen[] (each index must run exactly once). */
static inline size_t ito_test_spawn_mark(_Atomic uint8_t *seen, size_t n)
{
    size_t i;
    CHECK_OK(ito_spawn_index(&i));
    CHECK(i < n);
    CHECK_EQ(atomic_fetch_add(&seen[i], 1), 0);
    return i;
}
#endif

#if defined(ITO_SYNC_H) && defined(ITO_FUTURE_H)
/* Storage big enough for a synchronization object of any type (test_sync_marks and
 * fuzz_api fill it with objects, garbage and destroyed objects). */
typedef union {
    ito_mutex_t m;
    ito_cond_t c;
    ito_rwlock_t l;
    ito_sem_t s;
    ito_barrier_t b;
    ito_waitgroup_t g;
    ito_future_t f;
    unsigned char bytes[128];
} ito_test_any_sync_t;
#endif

#if defined(ITO_TEST_SECCOMP) /* tests that refuse a system call to the rest of the process */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
/* Installs the seccomp filter f (n instructions) in this process, in every thread it has
 * (TSYNC) and will have (a child of fork, usually: the filter cannot be removed). */
static inline void ito_test_seccomp(struct sock_filter *f, unsigned short n)
{
    struct sock_fprog prog = {.len = n, .filter = f};
    CHECK_EQ(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), 0);
    CHECK_EQ(syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &prog), 0);
}
/* From now on, system call `nr` fails with errno `err` (ito_test_seccomp). Stands for a
 * seccomp policy, an old kernel or a lasting shortage. */
static inline void ito_test_deny_syscall_errno(unsigned nr, int err)
{
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, nr, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ((unsigned)err & SECCOMP_RET_DATA)),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    ito_test_seccomp(f, sizeof f / sizeof f[0]);
}
/* The same with EPERM. */
static inline void ito_test_deny_syscall(unsigned nr) { ito_test_deny_syscall_errno(nr, EPERM); }
/* From now on, system call `nr` whose argument `arg` (its low word) is `val` fails with
 * errno `err` (ito_test_seccomp); other calls of nr go on. */
static inline void ito_test_deny_syscall_arg(unsigned nr, int arg, unsigned val, int err)
{
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, nr, 0, 3),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (unsigned)(offsetof(struct seccomp_data, args) + 8 * (unsigned)arg)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, val, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ((unsigned)err & SECCOMP_RET_DATA)),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    ito_test_seccomp(f, sizeof f / sizeof f[0]);
}
/* From now on, mmap(2) with exactly these flags (ito maps its regions of ULT stacks with
 * MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, and nothing else of the process
 * does after ito_init) fails with errno `err` (ito_test_seccomp): stands for a kernel that
 * refuses more mappings (vm.max_map_count reached, RLIMIT_AS) to the stacks only, in every
 * tree (the sanitizers' own mappings go on). */
static inline void ito_test_deny_mmap_flags(unsigned flags, int err)
{
    ito_test_deny_syscall_arg(__NR_mmap, 3, flags, err);
}
#endif

#if defined(ITO_ZWT_H) && defined(ITO_SYSCALL_H) /* the tests that include zwt.h and syscall.h (ito.h) */
/* The most data a 1-entry frame may have and still take the memory of an `ne`-entry frame
 * without data (one size class; pools are last in, first out): tests of frame reuse. */
__attribute__((unused)) static size_t ito_test_same_class_data(int ne)
{
    size_t best = 0;
    for (size_t ds = 16; ds <= 8192; ds += 16) {
        ito_frame_t *a, *b;
        CHECK_OK(ito_frame_create(&a, ne, 0));
        CHECK_OK(ito_frame_destroy(a));
        CHECK_OK(ito_frame_create(&b, 1, ds));
        if (((uintptr_t)b & 0xffffffffffffull) == ((uintptr_t)a & 0xffffffffffffull)) best = ds;
        CHECK_OK(ito_frame_destroy(b));
    }
    return best;
}

/* Post a split-phase 1-byte read of fd that continues entry `entry` of frame f. */
__attribute__((unused)) static void ito_test_post_read1(int fd, char *buf, long *result, ito_frame_t *f, int entry)
{
    ito_sysreq_t r;
    memset(&r, 0, sizeof r);
    r.op = ITO_SYS_READ;
    r.fd = fd;
    r.buf = buf;
    r.len = 1;
    r.result = result;
    r.frame = f;
    r.entry = entry;
    CHECK_OK(ito_sys_post(&r));
}
#endif

#endif
