/* bench_argobots: Argobots' numbers for yield and create_join (issue 15's peer).
 *
 * Argobots is on none of the registries this project builds from (PyPI, crates, the Go
 * proxy, Debian bookworm), so this program is built only when an Argobots installation is
 * found: pkg-config `argobots`, or ARGOBOTS_PREFIX=<prefix> (holding include/abt.h and
 * lib/libabt.*) in the environment of the cmake configure step. Otherwise the lab reports
 * the argobots pairs as missing. See lab/README.md, "Peers and how they are measured".
 *
 * How the peer is used (Argobots' defaults, as its own test/benchmark/thread_ops runs):
 *   - ABT_init with the primary execution stream only (the calling thread, one core);
 *     every ULT goes to the primary stream's main pool (a FIFO, the default scheduler);
 *   - ULT stacks come from Argobots' memory pool at its default size (ABT_THREAD_STACKSIZE,
 *     16 KiB unless the environment sets another: ito's default is 64 KiB; the stack size
 *     does not enter either fast path, both recycle stacks).
 * Benchmarks (the same shape as bench_ito's):
 *   yield        one ULT and the main ULT call ABT_thread_yield n times each; per yield =
 *                elapsed / 2n;
 *   create_join  ABT_thread_create of an empty ULT and ABT_thread_free (which joins it),
 *                n times; per ULT = elapsed / n.
 * Prints RESULT lines with system=argobots (see peer_common.h). */
#include <abt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "peer_common.h"

static ABT_pool pool;
static long ran; /* how many ULTs ran: a create that did not run would be caught */

static void check(int rc, const char *what)
{
    if (rc != ABT_SUCCESS) {
        fprintf(stderr, "bench_argobots: %s failed (%d)\n", what, rc);
        exit(1);
    }
}

static void empty(void *arg)
{
    (void)arg;
    ran++;
}

static void yield_loop(void *arg)
{
    long n = (long)(intptr_t)arg;
    for (long i = 0; i < n; i++) ABT_thread_yield();
}

static void yield_body(long n)
{
    ABT_thread th;
    check(ABT_thread_create(pool, yield_loop, (void *)(intptr_t)n, ABT_THREAD_ATTR_NULL, &th), "ABT_thread_create");
    for (long i = 0; i < n; i++) ABT_thread_yield();
    check(ABT_thread_free(&th), "ABT_thread_free");
}

static void create_join_body(long n)
{
    for (long i = 0; i < n; i++) {
        ABT_thread th;
        check(ABT_thread_create(pool, empty, NULL, ABT_THREAD_ATTR_NULL, &th), "ABT_thread_create");
        check(ABT_thread_free(&th), "ABT_thread_free");
    }
}

int main(int argc, char **argv)
{
    peer_opts o = peer_parse_args(argc, argv);
    check(ABT_init(0, NULL), "ABT_init");
    ABT_xstream xs;
    check(ABT_xstream_self(&xs), "ABT_xstream_self");
    check(ABT_xstream_get_main_pools(xs, 1, &pool), "ABT_xstream_get_main_pools");
    if (peer_wants(&o, "yield")) peer_measure(&o, "yield", "argobots", peer_ops(&o, 200000), 2.0, yield_body);
    if (peer_wants(&o, "create_join")) {
        long n = peer_ops(&o, 200000);
        ran = 0;
        peer_measure(&o, "create_join", "argobots", n, 1.0, create_join_body);
        if (ran != n * (o.trials + 1)) {
            fprintf(stderr, "bench_argobots: %ld of %ld ULTs ran\n", ran, n * (o.trials + 1));
            return 1;
        }
    }
    check(ABT_finalize(), "ABT_finalize");
    return 0;
}
