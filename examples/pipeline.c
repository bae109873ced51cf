/* pipeline: a producer/consumer pipeline over typed channels.
 *
 *   numbers --[chan]--> SQUARERS squarer ULTs --[chan]--> one summer ULT
 *
 * The producer sends 1..N and closes its channel; each squarer receives until that
 * channel is closed and drained, and sends the squares on; when the last squarer is done
 * (a wait group), main closes the second channel, and the summer's loop ends. The
 * channels are small (8 items), so every stage waits for the next now and then.
 *
 *   pipeline               prints "pipeline: sum of squares 1..10000 = 333383335000"
 */
#include <stdint.h>
#include <stdio.h>

#include <ito/ito.h>

#define N 10000
#define SQUARERS 4

ITO_CHAN_TYPED(u64_chan, uint64_t) /* u64_chan_t and u64_chan_send/recv/... */

static u64_chan_t numbers, squares;
static ito_waitgroup_t squarers_left;

static void *producer(void *arg)
{
    (void)arg;
    for (uint64_t i = 1; i <= N; i++) u64_chan_send(numbers, &i);
    u64_chan_close(numbers); /* receivers drain what is left, then get ITO_ECLOSED */
    return NULL;
}

static void *squarer(void *arg)
{
    (void)arg;
    uint64_t x;
    while (u64_chan_recv(numbers, &x) == ITO_OK) {
        uint64_t sq = x * x;
        u64_chan_send(squares, &sq);
    }
    ito_waitgroup_done(&squarers_left);
    return NULL;
}

static void *summer(void *arg)
{
    uint64_t *sum = arg, x;
    while (u64_chan_recv(squares, &x) == ITO_OK) *sum += x;
    return NULL;
}

int main(void)
{
    ito_init(NULL);
    u64_chan_create(&numbers, 8);
    u64_chan_create(&squares, 8);
    ito_waitgroup_init(&squarers_left);
    ito_waitgroup_add(&squarers_left, SQUARERS);

    uint64_t sum = 0;
    ito_thread_t prod, sq[SQUARERS], sumt;
    ito_create(&sumt, summer, &sum, NULL);
    for (int i = 0; i < SQUARERS; i++) ito_create(&sq[i], squarer, NULL, NULL);
    ito_create(&prod, producer, NULL, NULL);

    ito_waitgroup_wait(&squarers_left); /* every square has been sent */
    u64_chan_close(squares);
    ito_join(prod, NULL);
    for (int i = 0; i < SQUARERS; i++) ito_join(sq[i], NULL);
    ito_join(sumt, NULL);

    u64_chan_destroy(numbers);
    u64_chan_destroy(squares);
    ito_waitgroup_destroy(&squarers_left);
    ito_finalize();
    uint64_t want = (uint64_t)N * (N + 1) * (2 * N + 1) / 6;
    printf("pipeline: sum of squares 1..%d = %llu%s\n", N, (unsigned long long)sum, sum == want ? "" : " (WRONG)");
    return sum == want ? 0 : 1;
}
