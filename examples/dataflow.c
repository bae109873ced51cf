/* dataflow: a dataflow graph of zero-wait threads (ZWTs), fired by counters.
 *
 * It computes  f = (a + b) * (c - d)  over LANES independent lanes:
 *
 *     load ---> add ---\
 *          \            > mul ---> done (a ULT waits here)
 *           --> sub ---/
 *
 * Each node is an entry of an instance frame with a fan-in: `load` fans out to `add` and
 * `sub` (fan-in 1 each), `mul` has fan-in 2 and fires only when both have continued to
 * it, whatever order they ran in. ZWTs never wait: each computes, stores its result in
 * the frame's data area and continues to its successors. One frame per lane; all lanes
 * continue to one shared `done` entry of fan-in LANES, which wakes main.
 * A future carries the input in: main sets it, and its continuation fires every lane's
 * `load` (ito_future_then).
 *
 *   dataflow               prints "dataflow: 64 lanes, sum of f = 10906"
 */
#include <stdint.h>
#include <stdio.h>

#include <ito/ito.h>

#define LANES 64
enum { LOAD, ADD, SUB, MUL, NODES };

typedef struct lane {
    int64_t a, b, c, d; /* inputs */
    int64_t sum, diff;  /* intermediate results */
    int64_t f;          /* the result */
} lane_t;

static ito_frame_t *done_frame; /* one entry: fan-in LANES, code-less (main waits on it) */

static void load(ito_frame_t *fr, int entry, uint64_t input)
{
    (void)entry;
    lane_t *l = ito_frame_data(fr);
    l->a += (int64_t)input; /* each lane was seeded with its index in a */
    l->b = 2;
    l->c = 7;
    l->d = l->a % 5;
    ito_continue(fr, ADD);
    ito_continue(fr, SUB);
}

static void add(ito_frame_t *fr, int entry, uint64_t v)
{
    (void)entry, (void)v;
    lane_t *l = ito_frame_data(fr);
    l->sum = l->a + l->b;
    ito_continue(fr, MUL);
}

static void sub(ito_frame_t *fr, int entry, uint64_t v)
{
    (void)entry, (void)v;
    lane_t *l = ito_frame_data(fr);
    l->diff = l->c - l->d;
    ito_continue(fr, MUL);
}

static void mul(ito_frame_t *fr, int entry, uint64_t v)
{
    (void)entry, (void)v;
    lane_t *l = ito_frame_data(fr);
    l->f = l->sum * l->diff;
    ito_continue(done_frame, 0);
}

int main(void)
{
    ito_init(NULL);
    ito_frame_create(&done_frame, 1, 0);
    ito_entry_set(done_frame, 0, NULL, LANES, ITO_MODE_USER);

    ito_future_t input;
    ito_future_init(&input);
    ito_frame_t *lanes[LANES];
    for (int i = 0; i < LANES; i++) {
        ito_frame_create(&lanes[i], NODES, sizeof(lane_t));
        ((lane_t *)ito_frame_data(lanes[i]))->a = i;
        ito_entry_set(lanes[i], LOAD, load, 1, ITO_MODE_USER);
        ito_entry_set(lanes[i], ADD, add, 1, ITO_MODE_USER);
        ito_entry_set(lanes[i], SUB, sub, 1, ITO_MODE_USER);
        ito_entry_set(lanes[i], MUL, mul, 2, ITO_MODE_USER); /* fires after add AND sub */
        ito_future_then(&input, lanes[i], LOAD);
    }

    ito_future_set(&input, 1);         /* fires every lane's load with the value 1 */
    ito_frame_wait(done_frame, 0);     /* main (a ULT) parks until all LANES muls ran */

    int64_t total = 0, want = 0;
    for (int i = 0; i < LANES; i++) {
        total += ((lane_t *)ito_frame_data(lanes[i]))->f;
        int64_t a = i + 1;
        want += (a + 2) * (7 - a % 5);
        ito_frame_destroy(lanes[i]);
    }
    ito_frame_destroy(done_frame);
    ito_future_destroy(&input);
    ito_finalize();
    printf("dataflow: %d lanes, sum of f = %lld%s\n", LANES, (long long)total, total == want ? "" : " (WRONG)");
    return total == want ? 0 : 1;
}
