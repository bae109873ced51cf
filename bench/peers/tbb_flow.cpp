// tbb_flow: the oneTBB peer of bench_zwt: the same three graphs (zwt_graphs.h) as
// flow_graph continue_node<continue_msg> nodes, one node per graph node, one make_edge per
// edge (a continue_node counts its predecessors and fires when all have signalled, then
// resets, as a ZWT entry with fan-in = in-degree that re-arms itself). Node bodies are
// empty: what is measured is the firing machinery, as in bench_zwt.
//   zwt_<graph>_1w: inside a task_arena of concurrency 1; zwt_<graph>_all: the default
//   arena (all CPUs of the affinity mask).
// A trial: try_put to every source, then wait_for_all; per node = elapsed / n; one
// untimed warm-up trial. Prints `RESULT benchmark=zwt_<graph>_<1w|all> system=tbb
// median_ns=<x> trials=<n>`. Command line: [--trials N] [--quick] [--only chain|diamond|dag].
#include <oneapi/tbb/flow_graph.h>
#include <oneapi/tbb/task_arena.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "zwt_graphs.h"

using namespace oneapi::tbb;
using node_t = flow::continue_node<flow::continue_msg>;

static double now_ns()
{
    return (double)std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

static void run(const char *graph, bool one, const zg_opts &o)
{
    zg_t g = zg_make(graph, o.quick);
    std::vector<double> v((size_t)o.trials);
    auto body = [&] {
        flow::graph fg;
        std::vector<std::unique_ptr<node_t>> nodes;
        nodes.reserve((size_t)g.n);
        for (int i = 0; i < g.n; i++)
            nodes.emplace_back(new node_t(fg, [](const flow::continue_msg &) { return flow::continue_msg(); }));
        for (int i = 0; i < g.n; i++)
            for (int k = g.sstart[i]; k < g.sstart[i + 1]; k++) flow::make_edge(*nodes[(size_t)i], *nodes[(size_t)g.succ[k]]);
        for (int t = -1; t < o.trials; t++) {
            double t0 = now_ns();
            for (int i = 0; i < g.n; i++)
                if (!g.fanin[i]) nodes[(size_t)i]->try_put(flow::continue_msg());
            fg.wait_for_all();
            double dt = now_ns() - t0;
            if (t >= 0) v[(size_t)t] = dt / g.n;
        }
    };
    if (one) {
        task_arena arena(1);
        arena.execute(body);
    } else {
        body();
    }
    std::string name = std::string("zwt_") + graph + (one ? "_1w" : "_all");
    zg_report(name.c_str(), "tbb", v.data(), o.trials);
    zg_free(&g);
}

int main(int argc, char **argv)
{
    zg_opts o = zg_parse(argc, argv);
    for (const char *gname : {"chain", "diamond", "dag"}) {
        if (!zg_wants(&o, gname)) continue;
        run(gname, true, o);
        run(gname, false, o);
    }
    return 0;
}
