/* bench_zwt: zero-wait threads on three graphs (bench/peers/zwt_graphs.h): a chain of
 * counter-fired threads, a fan-out/fan-in diamond, and a wide random DAG, each on one
 * worker (zwt_<graph>_1w) and on all workers (zwt_<graph>_all).
 *
 * One frame holds the graph: entry i is node i (fan-in = its in-degree, 1 for sources)
 * and entry n is a code-less join (fan-in = number of sinks) that the main ULT waits on.
 * A node re-arms itself first (the paper's self-continuation that resets its counter,
 * as a flow_graph continue_node resets its own), then continues to its successors. A
 * trial: main continues the sources and waits for the join; per node = elapsed / n. One
 * untimed warm-up trial. The oneTBB side is bench/peers/tbb_flow.cpp.
 * Prints `RESULT benchmark=zwt_<graph>_<1w|all> system=ito median_ns=<x> trials=<n>`. */
#define _GNU_SOURCE
#include <time.h>

#include "bench_util.h"
#include "ito/ito.h"
#include "zwt_graphs.h"

static zg_t g;

static void node(ito_frame_t *f, int i, uint64_t v)
{
    (void)v;
    ito_rearm(f, i, 0);
    int a = g.sstart[i], b = g.sstart[i + 1];
    if (a == b) {
        ito_continue(f, g.n);
        return;
    }
    for (int k = a; k < b; k++) ito_continue(f, g.succ[k]);
}


static int run(const char *graph, int workers, const zg_opts *o)
{
    ito_config_t cfg = {.workers = workers};
    if (ito_init(workers ? &cfg : NULL) != ITO_OK) return 1;
    g = zg_make(graph, o->quick);
    ito_frame_t *f;
    if (ito_frame_create(&f, g.n + 1, 0) != ITO_OK) return 1;
    for (int i = 0; i < g.n; i++)
        if (ito_entry_set(f, i, node, g.fanin[i] ? (uint32_t)g.fanin[i] : 1, ITO_MODE_USER) != ITO_OK) return 1;
    if (ito_entry_set(f, g.n, NULL, (uint32_t)g.nsinks, ITO_MODE_USER) != ITO_OK) return 1;
    double *v = zg_alloc(sizeof(double) * (size_t)o->trials);
    for (int t = -1; t < o->trials; t++) {
        if (ito_rearm(f, g.n, 0) != ITO_OK) return 1;
        double t0 = itob_now_ns();
        for (int i = 0; i < g.n; i++)
            if (!g.fanin[i] && ito_continue(f, i) != ITO_OK) return 1;
        if (ito_frame_wait(f, g.n) != ITO_OK) return 1;
        double dt = itob_now_ns() - t0;
        if (t >= 0) v[t] = dt / g.n;
    }
    char name[64];
    snprintf(name, sizeof name, "zwt_%s_%s", graph, workers == 1 ? "1w" : "all");
    zg_report(name, "ito", v, o->trials);
    free(v);
    ito_frame_destroy(f);
    zg_free(&g);
    return ito_finalize() == ITO_OK ? 0 : 1;
}

int main(int argc, char **argv)
{
    zg_opts o = zg_parse(argc, argv);
    const char *graphs[] = {"chain", "diamond", "dag"};
    for (int k = 0; k < 3; k++) {
        if (!zg_wants(&o, graphs[k])) continue;
        if (run(graphs[k], 1, &o) || run(graphs[k], 0, &o)) {
            fprintf(stderr, "bench_zwt: %s failed\n", graphs[k]);
            return 1;
        }
    }
    return 0;
}
