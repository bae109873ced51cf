/* test_io_finalize_grace0: with ITO_FINALIZE_GRACE_MS=0 a ULT parked in a wrapper on a
 * pipe nobody writes is cancelled (ECANCELED) and finalize returns ITO_OK, on both
 * backends, in many init/finalize cycles. Before, finalize's first look could come
 * before the ULT (created just before, on main's worker) had posted its request: nothing
 * to cancel, ITO_EBUSY with "blocked on ito objects" (about 1 cycle in 70-300); it now
 * looks again for 10 ms before it reports ULTs blocked. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

static int pipefd[2], use_poll;
static _Atomic int done;
static long res;
static int err;

static void *reader(void *arg)
{
    (void)arg;
    char b[8];
    struct pollfd p = {.fd = pipefd[0], .events = POLLIN};
    res = use_poll ? ito_poll(&p, 1, -1) : ito_read(pipefd[0], b, sizeof b);
    err = errno;
    atomic_store(&done, 1);
    return NULL;
}

int main(void)
{
    CHECK_EQ(pipe(pipefd), 0);
    setenv("ITO_FINALIZE_GRACE_MS", "0", 1);
#if defined(ITOI_ASAN) || defined(ITOI_TSAN)
    int cycles = 100;
#else
    int cycles = 400;
#endif
    for (int b = 0; b < ITO_TEST_NBACKENDS; b++) {
        setenv("ITO_WSC_BACKEND", ito_test_backends[b], 1);
        for (use_poll = 0; use_poll <= 1; use_poll++) {
            for (int i = 0; i < cycles; i++) {
                CHECK_OK(ito_init(NULL));
                atomic_store(&done, 0);
                ito_attr_t a;
                ito_attr_init(&a);
                a.flags = ITO_ATTR_DETACHED;
                a.worker = 0;
                CHECK_OK(ito_create(NULL, reader, NULL, &a));
                CHECK_OK(ito_finalize());
                CHECK_EQ(atomic_load(&done), 1);
                CHECK_EQ(res, -1);
                CHECK_EQ(err, ECANCELED);
            }
        }
    }
    unsetenv("ITO_WSC_BACKEND");
    unsetenv("ITO_FINALIZE_GRACE_MS");
    TEST_DONE();
}
