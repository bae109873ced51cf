/* player.c: the audio case study of compiler-assisted co-operative threading (paper
 * section 4, Table 3), one program per variant built from the same sources.
 *
 *   player-<variant> FILE.ogg [--period-us F] [--no-ticks] [--helper-timer] [--burst B] [--neighbour]
 *   player-budget<...> FILE.ogg [--budget N]
 *
 * A decoder ULT (decoder.c, stb_vorbis) decodes the whole file into the feed as fast as it
 * can; a player ULT on the same worker must run once per sample period (1/44100 s by
 * default): each run takes the next frame from the feed (folds it into a checksum) and
 * yields back. The ticker (ticker.c) marks each period:
 *   PLY_MODE 0  "no threading": the decoder alone in main, no runtime, no player, no timer;
 *   PLY_MODE 1  co-operative: the tick sets ito_coop_flag and the decoder's yield points,
 *               compiled in by the plugin (full / abi / min variants of decoder.c), switch;
 *   PLY_MODE 2  preemptive: decoder.c without yield points; the tick's signal handler
 *               switches the decoder out with the full-save switch.
 * --no-ticks runs the threaded variant without a timer (what the yield points cost when
 * no tick ever comes: guards and forced prologue saves). --helper-timer (co-operative
 * variants) sets the flag from a helper thread on the other core instead of a signal.
 * --neighbour (runs without ticks: no threading, or --no-ticks) keeps that helper spinning
 * on the other core without ever storing the flag: the baseline with the same busy
 * neighbour CPU as the helper timer, so the helper's presence and its ticks are told apart.
 * The budget variants (decoder.c built with ito-cc --ito-check=budget, PLY_BUDGET) have no
 * timer: the decoder yields whenever it has run about N estimated instructions (--budget,
 * default 7,700: the paper's one tick per 7,700 cycles of its simulator, where a cycle was
 * an instruction); each yield is one "tick" for the player.
 *
 * Output, one key=value per line: the checksum over every decoded frame (identical in all
 * variants: the main ULT folds in the frames the player did not take), the decoding time,
 * and the tick counters (served, missed deadlines, latency). */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feed.h"
#include "ticker.h"
#include "ito/ito.h"

#ifndef PLY_MODE
#error "PLY_MODE must be 0 (no threading), 1 (co-operative) or 2 (preemptive)"
#endif
#ifndef PLY_VARIANT
#define PLY_VARIANT "unnamed"
#endif

typedef struct run {
    ply_feed_t feed;
    void *dec;
    uint64_t period_ns;
    int ticks, helper, neighbour;
    long budget; /* budget variants: the quantum (ito_coop_set_budget) */
    unsigned burst, burst_left; /* --burst B: each tick is followed by B-1 more switches */
    long frames;
    uint64_t decode_ns;
    ply_tick_stats_t tick;
    /* the player's side */
    size_t consumed;
    uint64_t hash, runs, underruns;
} run_t;

static uint64_t fold(uint64_t h, const int16_t *s, int n)
{
    for (int i = 0; i < n; i++) {
        h ^= (uint16_t)s[i];
        h *= 1099511628211u;
    }
    return h;
}

static unsigned char *slurp(const char *path, long *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    unsigned char *b = NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (*len = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (b = malloc((size_t)*len)) != NULL && fread(b, 1, (size_t)*len, f) != (size_t)*len) {
        free(b);
        b = NULL;
    }
    fclose(f);
    return b;
}

static void decode_timed(run_t *r)
{
    int spin = r->neighbour; /* never with ticks: main() refuses that */
    if (spin && ply_ticker_start(r->period_ns, PLY_TICK_SPIN) != 0) {
        perror("player: neighbour");
        exit(2);
    }
    uint64_t t0 = ply_now_ns();
    r->frames = ply_decode(r->dec, &r->feed);
    r->decode_ns = ply_now_ns() - t0;
    if (spin) ply_ticker_stop(&r->tick);
}

#if PLY_MODE != 0
static void *decoder_main(void *arg)
{
    run_t *r = arg;
    ply_tick_mode_t m = PLY_MODE == 2 ? PLY_TICK_PREEMPT
                        : r->helper ? PLY_TICK_HELPER : PLY_TICK_FLAG;
    if (r->ticks && ply_ticker_start(r->period_ns, m) != 0) {
        perror("player: timer");
        exit(2);
    }
    ply_ticker_preemptible(1);
    decode_timed(r);
    ply_ticker_preemptible(0);
    if (r->ticks) ply_ticker_stop(&r->tick);
    return NULL;
}

/* The player's own yield. By default the ABI yield (ito_yield) in every variant. With
 * PLY_PLAYER_YIELD the player's switch takes the decoder's save policy, the paper's other
 * reading of "full save" ("mimics the case when the threads are scheduled preemptively":
 * every switch saves everything): 2, the full save (every GPR and XSAVE); 1, the minimal
 * yield, which keeps rsp and rbp and has the compiler spill exactly what is live here. A
 * budget variant's decoder has just refilled the countdown when the player runs, so both
 * calls find the yield due and switch. */
static inline void player_yield(void)
{
#if defined(PLY_PLAYER_YIELD) && PLY_PLAYER_YIELD == 2
    ito_coop_yield_full();
#elif defined(PLY_PLAYER_YIELD) && PLY_PLAYER_YIELD == 1
    ITO_COOP_YIELD_MIN();
#else
    ito_yield();
#endif
}

/* One run per tick: the frame of this sample period, a deadline check (ply_ticker_served
 * records how late the run is), then back to the decoder. */
static void *player_main(void *arg)
{
    run_t *r = arg;
    int ch = r->feed.channels;
    for (;;) {
        ply_ticker_preemptible(0);
        if (ply_ticker_served())
            r->burst_left = r->burst > 1 ? r->burst - 1 : 0;
        else if (r->burst_left > 0)
            r->burst_left--;
        int rearm = r->burst_left > 0;
        int done = atomic_load_explicit(&r->feed.done, memory_order_acquire);
        size_t pub = atomic_load_explicit(&r->feed.published, memory_order_acquire);
        if (r->consumed < pub) {
            r->hash = fold(r->hash, r->feed.buf + r->consumed * (size_t)ch, ch);
            r->consumed++;
        } else if (!done && pub > 0) {
            r->underruns++; /* nothing to play in this period: a missed deadline too */
        }
        r->runs++;
        if (done) break;
        ply_ticker_preemptible(1);
        if (rearm) ito_coop_flag = 1; /* the decoder yields again at its next yield point */
        player_yield();
    }
    return NULL;
}

static void run_threads(run_t *r)
{
    ito_config_t cfg = {.workers = 1, .stack_size = 0};
    if (ito_init(&cfg) != ITO_OK) {
        fprintf(stderr, "player: ito_init failed\n");
        exit(2);
    }
    if (r->budget && ito_coop_set_budget(r->budget, 0) != ITO_OK) {
        fprintf(stderr, "player: --budget %ld: out of range\n", r->budget);
        exit(2);
    }
    ito_attr_t da, pa;
    ito_attr_init(&da);
    da.worker = 0;
    da.stack_size = 1u << 20; /* stb_vorbis allocas its scratch; signal frames land here too */
    da.name = "decoder";
    ito_attr_init(&pa);
    pa.worker = 0;
    pa.name = "player";
    ito_thread_t d, p;
    if (ito_create(&d, decoder_main, r, &da) != ITO_OK ||
        ito_create(&p, player_main, r, &pa) != ITO_OK) {
        fprintf(stderr, "player: ito_create failed\n");
        exit(2);
    }
    ito_join(d, NULL);
    ito_join(p, NULL);
    ito_stats_t s;
    if (ito_stats(&s) == ITO_OK) printf("switches=%llu\n", (unsigned long long)s.switches);
    ito_finalize();
}
#endif

int main(int argc, char **argv)
{
    const char *path = NULL;
    run_t r;
    memset(&r, 0, sizeof r);
    r.period_ns = 1000000000u / 44100u;
    r.ticks = 1;
    r.hash = 14695981039346656037u;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--period-us") && i + 1 < argc)
            r.period_ns = (uint64_t)(strtod(argv[++i], NULL) * 1000.0);
        else if (!strcmp(argv[i], "--no-ticks"))
            r.ticks = 0;
        else if (!strcmp(argv[i], "--helper-timer"))
            r.helper = 1;
        else if (!strcmp(argv[i], "--neighbour"))
            r.neighbour = 1;
        else if (!strcmp(argv[i], "--burst") && i + 1 < argc)
            r.burst = (unsigned)strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--budget") && i + 1 < argc)
            r.budget = strtol(argv[++i], NULL, 10);
        else if (argv[i][0] != '-' && !path)
            path = argv[i];
        else {
            fprintf(stderr, "usage: %s FILE.ogg [--period-us F] [--no-ticks] [--helper-timer] [--burst B] [--neighbour]\n",
                    argv[0]);
            return 2;
        }
    }
#if PLY_MODE == 0
    if (r.neighbour) r.ticks = 0; /* no threading has no ticks; the neighbour only spins */
#endif
#ifdef PLY_BUDGET
    if (r.budget == 0) r.budget = 7700;
    if (r.budget < 0 || r.helper || r.neighbour) {
        fprintf(stderr, "%s: a budget variant takes --budget N (N > 0) and no timer options\n", argv[0]);
        return 2;
    }
    r.ticks = 0; /* no timer: the decoder's budget runs out by itself */
#else
    if (r.budget) {
        fprintf(stderr, "%s: --budget needs a budget variant (player-budget*)\n", argv[0]);
        return 2;
    }
#endif
    if (r.neighbour && r.ticks) {
        fprintf(stderr, "%s: --neighbour is a baseline without ticks: add --no-ticks\n", argv[0]);
        return 2;
    }
    if (!path || r.period_ns == 0) {
        fprintf(stderr, "usage: %s FILE.ogg [--period-us F] ...\n", argv[0]);
        return 2;
    }
    long len = 0;
    unsigned char *ogg = slurp(path, &len);
    if (!ogg) {
        fprintf(stderr, "player: cannot read %s: %s\n", path, strerror(errno));
        return 2;
    }
    r.dec = ply_decoder_open(ogg, (int)len, &r.feed);
    if (!r.dec || r.feed.cap_frames == 0) {
        fprintf(stderr, "player: %s is not an Ogg Vorbis stream (%d)\n", path, r.feed.error);
        return 2;
    }
    r.feed.buf = calloc(r.feed.cap_frames, sizeof(int16_t) * (size_t)r.feed.channels);
    if (!r.feed.buf) return 2;

    printf("variant=%s\nmode=%d\n", PLY_VARIANT, PLY_MODE);
#if PLY_MODE == 0
    decode_timed(&r);
#else
    run_threads(&r);
#endif
    if (r.frames <= 0) {
        fprintf(stderr, "player: decoding failed\n");
        return 1;
    }
    /* The frames the player did not take (decoding ended first) are folded in here. */
    int ch = r.feed.channels;
    r.hash = fold(r.hash, r.feed.buf + r.consumed * (size_t)ch,
                  (int)(((size_t)r.frames - r.consumed) * (size_t)ch));
    ply_tick_stats_t *t = &r.tick;
    printf("frames=%ld\nchannels=%d\nrate=%d\nchecksum=%016llx\ndecode_ns=%llu\n"
           "period_ns=%llu\nticks=%llu\nserved=%llu\nmissed=%llu\noverruns=%llu\n"
           "preempted=%llu\ndeferred=%llu\nmax_latency_ns=%llu\nmean_latency_ns=%llu\n"
           "player_runs=%llu\nplayed=%zu\nunderruns=%llu\nfresh=%llu\nhelper_disjoint=%d\nneighbour=%d\n"
           "budget=%ld\n",
           r.frames, ch, r.feed.rate, (unsigned long long)r.hash,
           (unsigned long long)r.decode_ns, (unsigned long long)(r.ticks ? r.period_ns : 0),
           (unsigned long long)t->ticks, (unsigned long long)t->served,
           (unsigned long long)t->missed, (unsigned long long)t->overruns,
           (unsigned long long)t->preempted, (unsigned long long)t->deferred,
           (unsigned long long)t->max_latency_ns,
           (unsigned long long)(t->served ? t->sum_latency_ns / t->served : 0),
           (unsigned long long)r.runs, r.consumed, (unsigned long long)r.underruns,
           (unsigned long long)t->fresh, t->helper_disjoint, r.neighbour, r.budget);
    ply_decoder_close(r.dec);
    free(r.feed.buf);
    free(ogg);
    return 0;
}
