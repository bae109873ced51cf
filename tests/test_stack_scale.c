/* test_stack_scale: creation at scale fails cleanly and costs no mapping per stack.
 *  - 100,000 ULTs with default stacks blocked at once, and (release tree) 1,000,000 with
 *    8 KiB stacks: all created, all parked, all finish; the process's mappings grow by a
 *    few dozen, not by one or two per stack (vm.max_map_count is 65,530 here);
 *  - ito_create_many with an absurd count is refused at once with ITO_ENOMEM;
 *  - under an address-space limit (RLIMIT_AS, in a child process) ito_create and
 *    ito_create_many of blocking ULTs fail with ITO_ENOMEM at once, per thread, and the
 *    ones that were created run: no livelock, bounded time.
 * The ULTs blocked at once are made in batches of ito_create_many (all of them still
 * blocked together): on a loaded machine, where making and waking a million costs minutes,
 * no more batches are made once 25 s are spent, provided a set minimum of them has run
 * (ito_test_budget_t): at least 200,000 8 KiB stacks in the release tree, three times
 * vm.max_map_count. */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

static ito_mutex_t m;
static ito_cond_t c;
static int open_gate;
static _Atomic long parked, done;

static void *blocker(void *unused)
{
    (void)unused;
    volatile char touch[512]; /* some stack in use */
    touch[0] = 1;
    (void)touch[0];
    CHECK_OK(ito_mutex_lock(&m));
    atomic_fetch_add(&parked, 1);
    while (!open_gate) CHECK_OK(ito_cond_wait(&c, &m));
    CHECK_OK(ito_mutex_unlock(&m));
    atomic_fetch_add(&done, 1);
    return NULL;
}

/* batches * batch ULTs of `stack`-byte stacks (0: the default) blocked at once, or at
 * least min_batches * batch of them when the time budget is spent first. */
static void blocked_at_once(long batches, size_t batch, long min_batches, size_t stack)
{
    CHECK_OK(ito_mutex_init(&m));
    CHECK_OK(ito_cond_init(&c));
    open_gate = 0;
    atomic_store(&parked, 0);
    atomic_store(&done, 0);
    int maps0 = ito_test_count_mappings();
    ito_spawn_attr_t sa;
    CHECK_OK(ito_spawn_attr_init(&sa));
    sa.flags = ITO_ATTR_DETACHED;
    sa.stack_size = stack;
    char what[96];
    snprintf(what, sizeof what, "batches of %zu ULTs of %zu-byte stacks", batch, stack);
    ito_test_budget_t budget;
    ito_test_budget_init(&budget, what, batches, min_batches, 25);
    size_t n = 0;
    for (long i = 0; ito_test_budget_more(&budget, i); i++) {
        CHECK_OK(ito_create_many(batch, blocker, NULL, 0, NULL, NULL, NULL, &sa));
        n += batch;
        while ((size_t)atomic_load(&parked) < n) CHECK_OK(ito_sleep_ns(1000000));
    }
    int grown = ito_test_count_mappings() - maps0;
    ito_stats_t st;
    CHECK_OK(ito_stats(&st));
    fprintf(stderr, "%zu ULTs of %zu-byte stacks blocked at once: %d more mappings, %llu stacks live\n", n, stack,
            grown, (unsigned long long)st.stacks_live);
#if !defined(ITOI_TSAN) /* TSan maps two areas of its own per fiber */
    CHECK(grown < 200);
#endif
    CHECK(st.stacks_live >= n);
    CHECK_OK(ito_mutex_lock(&m));
    open_gate = 1;
    CHECK_OK(ito_cond_broadcast(&c));
    CHECK_OK(ito_mutex_unlock(&m));
    while ((size_t)atomic_load(&done) < n) CHECK_OK(ito_sleep_ns(1000000));
}

static void *quick(void *unused)
{
    (void)unused;
    return NULL;
}

#if !defined(ITOI_ASAN) && !defined(ITOI_TSAN) /* the sanitizers reserve terabytes of shadow */
/* In a child: an address space of 1 GiB more than now. */
static void under_rlimit_as(void)
{
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        FILE *f = fopen("/proc/self/statm", "r");
        unsigned long vm_pages = 0;
        CHECK(f && fscanf(f, "%lu", &vm_pages) == 1);
        fclose(f);
        struct rlimit rl = {.rlim_cur = vm_pages * 4096ul + (1ul << 30), .rlim_max = RLIM_INFINITY};
        CHECK_EQ(setrlimit(RLIMIT_AS, &rl), 0);
        CHECK_OK(ito_init(NULL));
        CHECK_OK(ito_mutex_init(&m));
        CHECK_OK(ito_cond_init(&c));
        open_gate = 0;
        /* ULTs that block, one by one: the first that finds no memory fails at once */
        size_t made = 0;
        int rc = ITO_OK;
        static ito_thread_t t[40000];
        while (made < 40000 && (rc = ito_create(&t[made], blocker, NULL, NULL)) == ITO_OK) made++;
        CHECK_EQ(rc, ITO_ENOMEM);
        CHECK(made > 100);
        /* in bulk: per-thread errors, some created, the rest ITO_ENOMEM */
        static int errs[40000];
        static ito_thread_t out[40000];
        ito_spawn_attr_t sa;
        CHECK_OK(ito_spawn_attr_init(&sa));
        rc = ito_create_many(40000, blocker, NULL, 0, NULL, out, errs, &sa);
        CHECK_EQ(rc, ITO_ENOMEM);
        size_t ok = 0, nomem = 0;
        for (int i = 0; i < 40000; i++) {
            CHECK(errs[i] == ITO_OK || errs[i] == ITO_ENOMEM);
            ok += errs[i] == ITO_OK;
            nomem += errs[i] == ITO_ENOMEM;
            if (errs[i] != ITO_OK) CHECK(out[i] == NULL);
        }
        CHECK(nomem > 0);
        CHECK_OK(ito_mutex_lock(&m));
        open_gate = 1;
        CHECK_OK(ito_cond_broadcast(&c));
        CHECK_OK(ito_mutex_unlock(&m));
        for (size_t i = 0; i < made; i++) CHECK_OK(ito_join(t[i], NULL));
        for (int i = 0; i < 40000; i++)
            if (errs[i] == ITO_OK) CHECK_OK(ito_join(out[i], NULL));
        CHECK_OK(ito_finalize());
        fprintf(stderr, "under RLIMIT_AS: %zu ULTs created one by one, then %zu of 40000 in bulk\n", made, ok);
        _exit(0);
    }
    int st;
    CHECK_EQ(waitpid(pid, &st, 0), pid);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}
#endif

int main(void)
{
    CHECK_OK(ito_init(NULL));
#if defined(ITOI_TSAN)
    blocked_at_once(1, 10000, 1, 0); /* TSan keeps a trace of 256 KiB per fiber: 10^5 need 25 GiB */
    blocked_at_once(1, 10000, 1, 8 * 1024);
#elif defined(ITOI_ASAN)
    blocked_at_once(4, 25000, 3, 0); /* at least 75,000, over vm.max_map_count */
    blocked_at_once(4, 25000, 3, 8 * 1024); /* the sanitizers' shadow of 10^6 stacks is too big for CI */
#else
    blocked_at_once(1, 100000, 1, 0);
    blocked_at_once(10, 100000, 2, 8 * 1024);
#endif
    /* absurd counts: refused whole, at once */
    ito_spawn_attr_t sa;
    CHECK_OK(ito_spawn_attr_init(&sa));
    sa.flags = ITO_ATTR_DETACHED;
    CHECK_EQ(ito_create_many((size_t)1 << 40, quick, NULL, 0, NULL, NULL, NULL, &sa), ITO_ENOMEM);
    CHECK_EQ(ito_create_many(SIZE_MAX, quick, NULL, 0, NULL, NULL, NULL, &sa), ITO_EINVAL); /* above 2^40 (spawn.h) */
    CHECK_OK(ito_finalize());
#if !defined(ITOI_ASAN) && !defined(ITOI_TSAN)
    under_rlimit_as(); /* the sanitizers reserve terabytes of shadow: no RLIMIT_AS there */
#endif
    TEST_DONE();
}
