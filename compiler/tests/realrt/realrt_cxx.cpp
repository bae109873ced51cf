/* realrt_cxx.cpp: C++ built by ito-c++ behaves exactly as without the plugin, on the real
 * ito runtime, with two ULTs really interleaving (realrt.c does the same for C).
 *
 * Two ULTs share one worker and run the same battery: exceptions thrown through several
 * frames whose destructors must run (and caught, rethrown, caught again), virtual calls,
 * std::function callbacks, a std::unique_ptr tree built and folded recursively, std::map /
 * std::vector / std::string work, and a lambda-driven sort. ito's own timer in FLAG mode
 * (ito_preempt_enable, 100 us) sets the worker's ito_coop_flag, so the yield points the
 * plugin compiled in switch between the two ULTs in the middle of all of it; with --signal
 * the timer's handler switches them itself (SIGNAL mode), wherever they are in this code.
 *
 * stdout holds only what does not depend on the interleaving (one hash per ULT and round,
 * the destructor balance); it must be byte-identical between the build without the plugin
 * and every plugin build (run_cxx.sh compares). stderr reports the switches and how often
 * each ULT saw the other make progress. */
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "ito/ito.h"

namespace {

constexpr int kUlts = 2;
constexpr int kRounds = 100;

volatile uint64_t progress[kUlts];
uint64_t seen_other[kUlts];
long live_guards; /* Guard objects alive: 0 at the end, or a destructor was skipped */

void step(int me)
{
    static uint64_t last[kUlts];
    uint64_t o = progress[1 - me];
    if (o != last[me]) seen_other[me]++;
    last[me] = o;
    progress[me] = progress[me] + 1;
}

uint64_t mix(uint64_t h, uint64_t v) { return (h ^ v) * 1099511628211u; }

struct Guard {
    uint64_t *h;
    uint64_t v;
    Guard(uint64_t *hp, uint64_t val) : h(hp), v(val) { live_guards++; }
    ~Guard()
    {
        *h = mix(*h, v);
        live_guards--;
    }
    Guard(const Guard &) = delete;
    Guard &operator=(const Guard &) = delete;
};

struct Failure : std::runtime_error {
    int depth;
    Failure(const std::string &what, int d) : std::runtime_error(what), depth(d) {}
};

/* Recurses, leaving a Guard in every frame, and throws at the bottom. */
uint64_t dive(uint64_t *h, int depth, int me)
{
    Guard g(h, static_cast<uint64_t>(depth) * 7u + 1u);
    uint64_t acc = 0;
    for (int i = 0; i < 200; i++) acc = mix(acc, static_cast<uint64_t>(i * depth));
    if (depth == 0) throw Failure("bottom of " + std::to_string(me), depth);
    return acc + dive(h, depth - 1, me);
}

uint64_t exceptions(int me, int round)
{
    uint64_t h = 1469598103934665603u;
    for (int k = 0; k < 4; k++) {
        try {
            try {
                h = mix(h, dive(&h, 6 + (round + k) % 5, me));
            } catch (const Failure &f) {
                h = mix(h, static_cast<uint64_t>(f.depth) + std::string(f.what()).size());
                throw; /* the outer handler sees it again */
            }
        } catch (const std::exception &e) {
            h = mix(h, std::string(e.what()).back());
        }
    }
    return h;
}

struct Shape {
    virtual ~Shape() = default;
    virtual uint64_t area() const = 0;
};
struct Rect : Shape {
    uint64_t w, l;
    Rect(uint64_t a, uint64_t b) : w(a), l(b) {}
    uint64_t area() const override { return w * l; }
};
struct Tri : Shape {
    uint64_t b, ht;
    Tri(uint64_t a, uint64_t c) : b(a), ht(c) {}
    uint64_t area() const override { return b * ht / 2; }
};

uint64_t shapes(int round)
{
    std::vector<std::unique_ptr<Shape>> v;
    for (int i = 0; i < 300; i++) {
        if ((i + round) % 3) v.push_back(std::make_unique<Rect>(i % 17 + 1, i % 13 + 2));
        else v.push_back(std::make_unique<Tri>(i % 11 + 3, i % 7 + 4));
    }
    uint64_t h = 0;
    for (const auto &s : v) h = mix(h, s->area());
    return h;
}

struct Node {
    uint64_t val;
    std::unique_ptr<Node> left, right;
};

std::unique_ptr<Node> build(int depth, uint64_t seed)
{
    if (depth == 0) return nullptr;
    auto n = std::make_unique<Node>();
    n->val = seed;
    n->left = build(depth - 1, seed * 3 + 1);
    n->right = build(depth - 1, seed * 5 + 2);
    return n;
}

uint64_t fold(const Node *n, const std::function<uint64_t(uint64_t, uint64_t)> &f)
{
    if (!n) return 0;
    return f(f(n->val, fold(n->left.get(), f)), fold(n->right.get(), f));
}

uint64_t trees(int round)
{
    auto root = build(10, static_cast<uint64_t>(round));
    uint64_t calls = 0;
    std::function<uint64_t(uint64_t, uint64_t)> f = [&calls](uint64_t a, uint64_t b) {
        calls++;
        return mix(a, b);
    };
    return mix(fold(root.get(), f), calls);
}

uint64_t containers(int round)
{
    std::map<std::string, int> words;
    std::string text;
    for (int i = 0; i < 400; i++) {
        text = "w" + std::to_string((i * 37 + round) % 97);
        words[text] += i;
    }
    std::vector<std::pair<std::string, int>> v(words.begin(), words.end());
    std::sort(v.begin(), v.end(), [](const auto &a, const auto &b) {
        return a.second != b.second ? a.second > b.second : a.first < b.first;
    });
    uint64_t h = v.size();
    for (const auto &p : v) {
        for (char c : p.first) h = mix(h, static_cast<uint64_t>(c));
        h = mix(h, static_cast<uint64_t>(p.second));
    }
    return h;
}

uint64_t results[kUlts][kRounds];

void *ult_main(void *arg)
{
    int me = static_cast<int>(reinterpret_cast<intptr_t>(arg));
    for (int r = 0; r < kRounds; r++) {
        uint64_t h = exceptions(me, r);
        step(me);
        h = mix(h, shapes(r));
        step(me);
        h = mix(h, trees(r));
        step(me);
        h = mix(h, containers(r));
        step(me);
        results[me][r] = h;
    }
    return nullptr;
}

} // namespace

int main(int argc, char **argv)
{
    ito_config_t cfg{};
    cfg.workers = 1;
    if (ito_init(&cfg) != ITO_OK) return 2;
    ito_preempt_config_t pc{};
    pc.quantum_us = 100;
    // --signal: the timer's handler switches the ULTs wherever they are in this program's
    // code (no compiled checks needed: the build without the plugin interleaves too)
    pc.mode = argc > 1 && std::string(argv[1]) == "--signal" ? ITO_PREEMPT_SIGNAL : ITO_PREEMPT_FLAG;
    if (ito_preempt_enable(&pc) != ITO_OK) return 2;
    ito_stats_t s0, s1;
    ito_stats(&s0);
    ito_thread_t t[kUlts];
    for (int i = 0; i < kUlts; i++)
        if (ito_create(&t[i], ult_main, reinterpret_cast<void *>(static_cast<intptr_t>(i)), nullptr) != ITO_OK) return 2;
    for (int i = 0; i < kUlts; i++)
        if (ito_join(t[i], nullptr) != ITO_OK) return 2;
    ito_stats(&s1);
    ito_preempt_disable();
    if (ito_finalize() != ITO_OK) return 2;
    for (int r = 0; r < kRounds; r++)
        std::printf("round %d: %016llx %016llx\n", r, static_cast<unsigned long long>(results[0][r]),
                    static_cast<unsigned long long>(results[1][r]));
    std::printf("guards left: %ld\n", live_guards);
    std::fprintf(stderr, "switches %llu\ninterleavings %llu %llu\n",
                 static_cast<unsigned long long>(s1.switches - s0.switches),
                 static_cast<unsigned long long>(seen_other[0]), static_cast<unsigned long long>(seen_other[1]));
    return 0;
}
