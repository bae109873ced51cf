/* bench_sync_boost_fiber: Boost.Fiber on the synchronization benchmarks of
 * bench/ito/bench_sync.c that it has an object for:
 *   chan_pingpong  two fibers bounce a uint64_t through two buffered_channel<uint64_t>(2)
 *                  (a buffered_channel of capacity 2 holds 1 item: ito's capacity 1),
 *                  per one-way message;
 *   chan_mpmc      4 producer and 4 consumer fibers move n items through one
 *                  buffered_channel(64) (63 items, as ito's 63 slots), per item;
 *   barrier        4 fibers pass a boost::fibers::barrier n times, per round;
 *   future         promise/future hand-off: A sets pa[i] and waits for fb[i], B waits for
 *                  fa[i] and sets pb[i]; promises and futures are made before the clock
 *                  starts; per one-way hand-off;
 *   tls_get        fiber_specific_ptr<T>::get() inside a fiber, per read.
 * (Boost.Fiber has no semaphore, rwlock or once: not measured here.) All fibers run on
 * the calling thread with the default round_robin scheduler, stacks from a
 * pooled_fixedsize_stack of 64 KiB (ito's default), launched with launch::post.
 * Prints RESULT lines with system=boost-fiber (see peer_common.h). */
#include <boost/fiber/all.hpp>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <vector>

#include "peer_common.h"

namespace fibers = boost::fibers;

namespace {

constexpr std::size_t stack_size = 64 * 1024;
fibers::pooled_fixedsize_stack *salloc;

template <class F> fibers::fiber spawn(F &&f)
{
    return fibers::fiber(fibers::launch::post, std::allocator_arg, *salloc, std::forward<F>(f));
}

void measure(const peer_opts &o, const char *name, long n, double per, void (*body)(long))
{
    peer_measure(&o, name, "boost-fiber", n, per, body);
}

void chan_pingpong(long n)
{
    fibers::buffered_channel<std::uint64_t> c1(2), c2(2);
    fibers::fiber echo = spawn([&] {
        std::uint64_t x;
        for (long i = 0; i < n; i++) {
            c1.pop(x);
            c2.push(x);
        }
    });
    for (long i = 0; i < n; i++) {
        std::uint64_t x = static_cast<std::uint64_t>(i);
        c1.push(x);
        c2.pop(x);
    }
    echo.join();
}

constexpr int mpmc = 4;
void chan_mpmc(long n)
{
    fibers::buffered_channel<std::uint64_t> c(64);
    std::vector<fibers::fiber> fs;
    for (int i = 0; i < mpmc; i++)
        fs.push_back(spawn([&] {
            std::uint64_t x;
            for (long k = 0; k < n / mpmc; k++) c.pop(x);
        }));
    for (int i = 0; i < mpmc; i++)
        fs.push_back(spawn([&] {
            for (long k = 0; k < n / mpmc; k++) c.push(static_cast<std::uint64_t>(k));
        }));
    for (auto &f : fs) f.join();
}

constexpr int parties = 4;
void barrier_rounds(long n)
{
    fibers::barrier b(parties);
    std::vector<fibers::fiber> fs;
    for (int i = 0; i < parties - 1; i++)
        fs.push_back(spawn([&] {
            for (long k = 0; k < n; k++) b.wait();
        }));
    for (long k = 0; k < n; k++) b.wait();
    for (auto &f : fs) f.join();
}

void futures(const peer_opts &o, long n)
{
    double *v = peer_samples(o.trials);
    for (int t = -1; t < o.trials; t++) {
        std::vector<fibers::promise<std::uint64_t>> pa(n), pb(n);
        std::vector<fibers::future<std::uint64_t>> fa, fb;
        fa.reserve(n);
        fb.reserve(n);
        for (long i = 0; i < n; i++) {
            fa.push_back(pa[i].get_future());
            fb.push_back(pb[i].get_future());
        }
        double t0 = peer_now_ns();
        fibers::fiber echo = spawn([&] {
            for (long i = 0; i < n; i++) pb[i].set_value(fa[i].get());
        });
        for (long i = 0; i < n; i++) {
            pa[i].set_value(static_cast<std::uint64_t>(i));
            (void)fb[i].get();
        }
        echo.join();
        double dt = peer_now_ns() - t0;
        if (t >= 0) v[t] = dt / (2.0 * static_cast<double>(n));
    }
    peer_report("future", "boost-fiber", v, o.trials);
    std::free(v);
}

void tls_get(long n)
{
    static fibers::fiber_specific_ptr<int> key([](int *) {});
    static int value;
    spawn([&] {
        key.reset(&value);
        int *volatile sink;
        for (long i = 0; i < n; i++) sink = key.get();
        (void)sink;
    }).join();
}

} // namespace

int main(int argc, char **argv)
{
    peer_opts o = peer_parse_args_any(argc, argv);
    fibers::pooled_fixedsize_stack stacks(stack_size);
    salloc = &stacks;
    if (peer_wants(&o, "chan_pingpong")) measure(o, "chan_pingpong", peer_ops(&o, 200000), 2, chan_pingpong);
    if (peer_wants(&o, "chan_mpmc")) measure(o, "chan_mpmc", peer_ops(&o, 400000), 1, chan_mpmc);
    if (peer_wants(&o, "barrier")) measure(o, "barrier", peer_ops(&o, 50000), 1, barrier_rounds);
    if (peer_wants(&o, "future")) futures(o, peer_ops(&o, 100000));
    if (peer_wants(&o, "tls_get")) measure(o, "tls_get", peer_ops(&o, 5000000), 1, tls_get);
    return 0;
}
