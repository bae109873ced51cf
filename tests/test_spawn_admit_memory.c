/* test_spawn_admit_memory: ito_create_many of a count larger than this machine's memory
 * and swap could hold (one page of stack and a descriptor each) but well inside the
 * address space is refused whole, at once (spawn.h: "A count this machine could not hold
 * at all (more than its memory and swap, one page of stack and a descriptor each, or than
 * its address space) is refused whole: ITO_ENOMEM, nothing created (every errs[i]
 * ITO_ENOMEM ...)"). test_stack_scale's absurd count (2^40) is past the address-space
 * bound too, so the memory bound was untested: without it the call went on creating
 * threads until memory ran out. In the release tree the process runs under a 3 GiB
 * address-space limit, so that a runtime without the bound fails here instead of
 * exhausting the host. */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

static _Atomic long ran;

static void *quick(void *arg)
{
    atomic_fetch_add(&ran, 1);
    return arg;
}

int main(void)
{
    struct sysinfo si;
    CHECK_OK(sysinfo(&si));
    unsigned long long mem = ((unsigned long long)si.totalram + si.totalswap) * si.mem_unit;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t n = (size_t)(mem / page) * 2; /* twice what could be held even at a page each */
#if !defined(ITOI_ASAN) && !defined(ITOI_TSAN)
    struct rlimit rl = {(rlim_t)3 << 30, (rlim_t)3 << 30};
    CHECK_OK(setrlimit(RLIMIT_AS, &rl));
#endif
    int *errs = malloc(n * sizeof *errs);
    CHECK(errs != NULL);
    if (!errs) return 1;
    for (size_t i = 0; i < n; i += 4096) errs[i] = 12345;
    ito_config_t cfg = {0};
    cfg.workers = 2;
    CHECK_OK(ito_init(&cfg));
    ito_spawn_attr_t sa;
    CHECK_OK(ito_spawn_attr_init(&sa));
    sa.flags = ITO_ATTR_DETACHED;
    uint64_t t0 = ito_test_now_ns();
    int rc = ito_create_many(n, quick, NULL, 0, NULL, NULL, errs, &sa);
    uint64_t dt = ito_test_now_ns() - t0;
    CHECK_EQ(rc, ITO_ENOMEM);
    size_t wrong = 0;
    for (size_t i = 0; i < n; i++) wrong += errs[i] != ITO_ENOMEM;
    CHECK_EQ(wrong, 0);
    for (int k = 0; k < 100; k++) ito_yield();
    CHECK_EQ(atomic_load(&ran), 0); /* nothing created */
    CHECK(dt < 2000000000u);        /* at once */
    CHECK_OK(ito_finalize());
    free(errs);
    TEST_DONE();
}
