/* bench_boost_fiber: Boost.Fiber's numbers for yield, create_join and create_1m.
 *
 * How the peer is used (chosen for its speed, see lab/README.md):
 *   - the default scheduler (round_robin) on the calling thread, no extra threads;
 *   - every fiber gets its stack from one boost::fibers::pooled_fixedsize_stack
 *     (64 KiB stacks, ito's default size), so stacks are recycled, never mmap'd per fiber;
 *   - fibers are launched with launch::BOOST_FIBER_LAUNCH (dispatch: the new fiber runs at
 *     once, as Boost.Fiber's own skynet benchmarks do; it was faster than post here).
 * Benchmarks:
 *   yield        two fibers yield to each other n times each; per yield = elapsed / 2n;
 *   create_join  create + run + join one empty fiber, n times; per fiber = elapsed / n;
 *   create_1m    1,000,000 empty fibers on this one thread, created in batches of
 *                10,000 alive at a time and joined; per fiber = elapsed / 1e6.
 * Prints RESULT lines with system=boost-fiber (see peer_common.h). */
#include <boost/fiber/all.hpp>

#include <cstdlib>
#include <memory>
#include <vector>

#include "peer_common.h"

#ifndef BOOST_FIBER_LAUNCH
#define BOOST_FIBER_LAUNCH dispatch
#endif

namespace fibers = boost::fibers;

namespace {

constexpr std::size_t stack_size = 64 * 1024;
constexpr long batch = 10000;
constexpr fibers::launch policy = fibers::launch::BOOST_FIBER_LAUNCH;

void empty() {}

void yield_loop(long n)
{
    for (long i = 0; i < n; i++) boost::this_fiber::yield();
}

void bench_yield(const peer_opts &o)
{
    const long n = peer_ops(&o, 100000);
    fibers::pooled_fixedsize_stack salloc(stack_size);
    double *v = peer_samples(o.trials);
    for (int t = -1; t < o.trials; t++) { // trial -1 warms up
        // post: both fibers wait in the ready queue until main blocks in join
        fibers::fiber a(fibers::launch::post, std::allocator_arg, salloc, yield_loop, n);
        fibers::fiber b(fibers::launch::post, std::allocator_arg, salloc, yield_loop, n);
        double t0 = peer_now_ns();
        a.join();
        b.join();
        double dt = peer_now_ns() - t0;
        if (t >= 0) v[t] = dt / (2.0 * static_cast<double>(n));
    }
    peer_report("yield", "boost-fiber", v, o.trials);
    std::free(v);
}

void bench_create_join(const peer_opts &o)
{
    const long n = peer_ops(&o, 100000);
    fibers::pooled_fixedsize_stack salloc(stack_size);
    double *v = peer_samples(o.trials);
    for (int t = -1; t < o.trials; t++) {
        double t0 = peer_now_ns();
        for (long i = 0; i < n; i++) {
            fibers::fiber f(policy, std::allocator_arg, salloc, empty);
            f.join();
        }
        double dt = peer_now_ns() - t0;
        if (t >= 0) v[t] = dt / static_cast<double>(n);
    }
    peer_report("create_join", "boost-fiber", v, o.trials);
    std::free(v);
}

void bench_create_1m(const peer_opts &o)
{
    const long n = peer_threads_1m(&o);
    const int trials = peer_trials_1m(&o);
    fibers::pooled_fixedsize_stack salloc(stack_size);
    std::vector<fibers::fiber> alive;
    alive.reserve(batch);
    double *v = peer_samples(trials);
    for (int t = -1; t < trials; t++) {
        const long total = t < 0 ? n / 10 : n; // a tenth of the fibers to warm up
        double t0 = peer_now_ns();
        for (long done = 0; done < total; done += batch) {
            const long k = total - done < batch ? total - done : batch;
            for (long i = 0; i < k; i++) alive.emplace_back(policy, std::allocator_arg, salloc, empty);
            for (auto &f : alive) f.join();
            alive.clear();
        }
        double dt = peer_now_ns() - t0;
        if (t >= 0) v[t] = dt / static_cast<double>(total);
    }
    peer_report("create_1m", "boost-fiber", v, trials);
    std::free(v);
}

} // namespace

int main(int argc, char **argv)
{
    peer_opts o = peer_parse_args(argc, argv);
    if (peer_wants(&o, "yield")) bench_yield(o);
    if (peer_wants(&o, "create_join")) bench_create_join(o);
    if (peer_wants(&o, "create_1m")) bench_create_1m(o);
    return 0;
}
