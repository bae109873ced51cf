/* bench_boost_context: raw one-direction context switch with Boost.Context's fcontext.
 *
 * Uses boost::context::detail::make_fcontext / jump_fcontext, the assembly primitives
 * under every higher-level Boost.Context API (fiber, continuation, callcc): no
 * allocation, no exception or unwinding machinery on the switch path, so this is the
 * fastest way to use the peer. (detail:: is not a documented interface, but it is
 * exported by libboost_context 1.74 and stable since 1.61; boost::context::fiber adds
 * a move of the fiber object per switch on top of the same jump_fcontext.)
 *
 * Two contexts ping-pong; a round trip is two switches, so one direction costs
 * elapsed / (2 * round trips). Prints RESULT benchmark=switch system=boost-context ...
 * and the same for switch_fp: the two contexts did floating-point work first, so their
 * MXCSRs differ in sticky status flags (ours inexact, the peer's invalid) and every
 * switch loads a value that differs from the one in effect. */
#include <boost/context/detail/fcontext.hpp>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "peer_common.h"

namespace ctx = boost::context::detail;

namespace {

constexpr std::size_t stack_size = 64 * 1024;

// The peer context: every jump into it is answered by a jump back to whoever came. With
// fp set it first raises the invalid-operation flag in its own MXCSR (0/0).
bool fp_work;
void peer_loop(ctx::transfer_t t)
{
    if (fp_work) {
        volatile double zero = 0.0;
        volatile double nan = zero / zero;
        (void)nan;
    }
    for (;;) t = ctx::jump_fcontext(t.fctx, nullptr);
}

void run(const char *bench, bool fp, long n, int trials)
{
    std::vector<char> stack(stack_size);
    fp_work = fp;
    ctx::fcontext_t peer = ctx::make_fcontext(stack.data() + stack.size(), stack.size(), peer_loop);
    peer = ctx::jump_fcontext(peer, nullptr).fctx; // the peer starts (and does its FP work)
    if (fp) { // ours: the inexact flag (1/3); the two contexts now differ in sticky flags
        volatile double one = 1.0, three = 3.0;
        volatile double third = one / three;
        (void)third;
    }
    double *v = peer_samples(trials);
    for (int t = -1; t < trials; t++) { // trial -1 warms up
        double t0 = peer_now_ns();
        for (long i = 0; i < n; i++) peer = ctx::jump_fcontext(peer, nullptr).fctx;
        double dt = peer_now_ns() - t0;
        if (t >= 0) v[t] = dt / (2.0 * static_cast<double>(n));
    }
    peer_report(bench, "boost-context", v, trials);
    std::free(v);
} // the peer context is abandoned suspended: it owns nothing

} // namespace

int main(int argc, char **argv)
{
    peer_opts o = peer_parse_args(argc, argv);
    const long n = peer_ops(&o, 1000000);
    if (peer_wants(&o, "switch")) run("switch", false, n, o.trials);
    if (peer_wants(&o, "switch_fp")) run("switch_fp", true, n, o.trials);
    return 0;
}
