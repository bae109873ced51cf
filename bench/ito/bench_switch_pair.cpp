/* bench_switch_pair: ito's raw ABI switch and Boost.Context's jump_fcontext in one program,
 * trial by trial, so that both see the same machine state (frequency, neighbours,
 * cache) and the same harness. A separate program per system (bench_ito,
 * bench_boost_context) measures each with its own code layout and loop; the ratio of
 * two such medians moves by several percent from run to run on a shared VM, more than
 * the difference being asked about ("raw ABI switch <= 1.0x Boost.Context").
 *
 * Each trial: N round trips of a ping-pong with ito's itoa_switch_abi_np, then N with
 * jump_fcontext, alternating which goes first. Prints, per system,
 *   RESULT benchmark=switch_pair system=<ito-abi|boost-context> median_ns=<x> trials=<n>
 * and the median and min of the per-trial ratio ito/Boost on stderr-free stdout lines
 *   RATIO benchmark=switch_pair median=<r> min=<r> max=<r>
 * Command line as every peer program ([--trials N] [--quick]). */
#include <boost/context/detail/fcontext.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

extern "C" { // ito's internal switch primitives (C, no C++ guard of their own)
#include "arch/x86_64/itoa.h"
}
#include "peer_common.h"

namespace ctx = boost::context::detail;

namespace {

void *main_sp, *peer_sp;

void ito_peer()
{
    for (;;) itoa_switch_abi_np(&peer_sp, main_sp);
}

void boost_peer(ctx::transfer_t t)
{
    for (;;) t = ctx::jump_fcontext(t.fctx, nullptr);
}

} // namespace

int main(int argc, char **argv)
{
    peer_opts o = peer_parse_args_any(argc, argv);
    if (!peer_wants(&o, "switch_pair")) return 0;
    const long n = peer_ops(&o, 1000000);
    itoa_cpu_init(ITOA_FP_AUTO);
    std::vector<char> s1(64 * 1024), s2(64 * 1024);
    peer_sp = itoa_make(s1.data() + s1.size(), ito_peer);
    ctx::fcontext_t bp = ctx::make_fcontext(s2.data() + s2.size(), s2.size(), boost_peer);
    std::vector<double> a, b, r;
    for (int t = -1; t < o.trials; t++) { // trial -1 warms up
        double ta = 0, tb = 0;
        for (int k = 0; k < 2; k++) {
            if ((k + t) % 2 == 0) {
                double t0 = peer_now_ns();
                for (long i = 0; i < n; i++) itoa_switch_abi_np(&main_sp, peer_sp);
                ta = (peer_now_ns() - t0) / (2.0 * static_cast<double>(n));
            } else {
                double t0 = peer_now_ns();
                for (long i = 0; i < n; i++) bp = ctx::jump_fcontext(bp, nullptr).fctx;
                tb = (peer_now_ns() - t0) / (2.0 * static_cast<double>(n));
            }
        }
        if (t < 0) continue;
        a.push_back(ta);
        b.push_back(tb);
        r.push_back(ta / tb);
    }
    peer_report("switch_pair", "ito-abi", a.data(), o.trials);
    peer_report("switch_pair", "boost-context", b.data(), o.trials);
    std::sort(r.begin(), r.end());
    std::printf("RATIO benchmark=switch_pair median=%.3f min=%.3f max=%.3f\n", r[r.size() / 2], r.front(),
                r.back());
    return 0;
}
