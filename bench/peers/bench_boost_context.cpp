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
 * elapsed / (2 * round trips). Prints RESULT benchmark=switch system=boost-context ... */
#include <boost/context/detail/fcontext.hpp>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "peer_common.h"

namespace ctx = boost::context::detail;

namespace {

constexpr std::size_t stack_size = 64 * 1024;

// The peer context: every jump into it is answered by a jump back to whoever came.
void peer_loop(ctx::transfer_t t)
{
    for (;;) t = ctx::jump_fcontext(t.fctx, nullptr);
}

} // namespace

int main(int argc, char **argv)
{
    peer_opts o = peer_parse_args(argc, argv);
    if (!peer_wants(&o, "switch")) return 0;
    const long n = peer_ops(&o, 1000000);
    std::vector<char> stack(stack_size);
    ctx::fcontext_t peer = ctx::make_fcontext(stack.data() + stack.size(), stack.size(), peer_loop);
    double *v = peer_samples(o.trials);
    for (int t = -1; t < o.trials; t++) { // trial -1 warms up
        double t0 = peer_now_ns();
        for (long i = 0; i < n; i++) peer = ctx::jump_fcontext(peer, nullptr).fctx;
        double dt = peer_now_ns() - t0;
        if (t >= 0) v[t] = dt / (2.0 * static_cast<double>(n));
    }
    peer_report("switch", "boost-context", v, o.trials);
    std::free(v);
    return 0; // the peer context is abandoned suspended: it owns nothing
}
