/* test_channel_stress: many producers and consumers on all workers through small
 * channels (capacity 5 and unbuffered), with blocking, timed and try operations mixed.
 * Every item is a 40-byte record with a checksum: none may arrive torn, none twice, none
 * lost; each consumer sees each producer's items in the order they were sent; the
 * producers' end is a close, after which the consumers drain and get ITO_ECLOSED. */
#include <stdatomic.h>
#include <stdint.h>

#include "ito/ito.h"
#include "ito_test.h"

#define PRODUCERS 16
#define CONSUMERS 8
#define PER 1500

typedef struct rec {
    uint32_t producer, seq;
    uint64_t body[3];
    uint64_t sum;
} rec_t;

static uint64_t checksum(const rec_t *r)
{
    uint64_t h = 1469598103934665603ull ^ r->producer;
    h = (h ^ r->seq) * 1099511628211ull;
    for (int i = 0; i < 3; i++) h = (h ^ r->body[i]) * 1099511628211ull;
    return h;
}

static ito_chan_t *chan;
static _Atomic uint8_t seen[PRODUCERS][PER];
static ito_waitgroup_t producing;

static void *producer(void *arg)
{
    uint32_t p = (uint32_t)(uintptr_t)arg;
    for (uint32_t s = 0; s < PER; s++) {
        rec_t r = {p, s, {(uint64_t)p << 32 | s, ~(uint64_t)s, s * 0x9e3779b97f4a7c15ull}, 0};
        r.sum = checksum(&r);
        int rc;
        switch (s % 3) {
        case 0:
            CHECK_OK(ito_chan_send(chan, &r));
            break;
        case 1: /* short deadlines: time out and retry until sent */
            while ((rc = ito_chan_send_until(chan, &r, ito_deadline_in(20000))) == ITO_ETIMEDOUT) {
            }
            CHECK_OK(rc);
            break;
        default: /* a few tries, then wait (two sides that only try never meet at capacity 0) */
            for (int t = 0; (rc = ito_chan_try_send(chan, &r)) == ITO_EAGAIN && t < 50; t++) CHECK_OK(ito_yield());
            if (rc == ITO_EAGAIN) rc = ito_chan_send(chan, &r);
            CHECK_OK(rc);
        }
    }
    CHECK_OK(ito_waitgroup_done(&producing));
    return NULL;
}

static void *consumer(void *arg)
{
    (void)arg;
    int64_t last[PRODUCERS];
    for (int i = 0; i < PRODUCERS; i++) last[i] = -1;
    long got = 0;
    for (unsigned k = 0;; k++) {
        rec_t r;
        int rc;
        if (k % 4 == 1) {
            while ((rc = ito_chan_recv_until(chan, &r, ito_deadline_in(20000))) == ITO_ETIMEDOUT) {
            }
        } else if (k % 4 == 3) {
            for (int t = 0; (rc = ito_chan_try_recv(chan, &r)) == ITO_EAGAIN && t < 50; t++) CHECK_OK(ito_yield());
            if (rc == ITO_EAGAIN) rc = ito_chan_recv(chan, &r);
        } else {
            rc = ito_chan_recv(chan, &r);
        }
        if (rc == ITO_ECLOSED) break;
        CHECK_OK(rc);
        CHECK(r.producer < PRODUCERS && r.seq < PER);
        CHECK_EQ(r.sum, checksum(&r)); /* not torn */
        CHECK_EQ(r.body[0], (uint64_t)r.producer << 32 | r.seq);
        CHECK((int64_t)r.seq > last[r.producer]); /* one producer's items stay in order */
        last[r.producer] = r.seq;
        CHECK_EQ(atomic_fetch_add(&seen[r.producer][r.seq], 1), 0); /* not twice */
        got++;
    }
    return (void *)got;
}

static void run(size_t capacity)
{
    CHECK_OK(ito_chan_create(&chan, sizeof(rec_t), capacity));
    memset(seen, 0, sizeof seen);
    CHECK_OK(ito_waitgroup_init(&producing));
    CHECK_OK(ito_waitgroup_add(&producing, PRODUCERS));
    ito_thread_t c[CONSUMERS], p[PRODUCERS];
    for (int i = 0; i < CONSUMERS; i++) CHECK_OK(ito_create(&c[i], consumer, NULL, NULL));
    for (uintptr_t i = 0; i < PRODUCERS; i++) CHECK_OK(ito_create(&p[i], producer, (void *)i, NULL));
    CHECK_OK(ito_waitgroup_wait(&producing));
    CHECK_OK(ito_chan_close(chan));
    long total = 0;
    for (int i = 0; i < CONSUMERS; i++) {
        void *got;
        CHECK_OK(ito_join(c[i], &got));
        total += (long)got;
    }
    for (int i = 0; i < PRODUCERS; i++) CHECK_OK(ito_join(p[i], NULL));
    CHECK_EQ(total, (long)PRODUCERS * PER); /* none lost */
    for (int i = 0; i < PRODUCERS; i++)
        for (int s = 0; s < PER; s++) CHECK_EQ(atomic_load(&seen[i][s]), 1);
    CHECK_OK(ito_waitgroup_destroy(&producing));
    CHECK_OK(ito_chan_destroy(chan));
}

int main(void)
{
    CHECK_OK(ito_init(NULL));
    run(5);
    run(0);
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
