/* test_channel: the bounded channel's semantics. FIFO order and the try-variants; a
 * blocking send waits while full and a waiting receiver gets the item straight from the
 * sender; unbuffered channels (capacity 0) rendezvous; timed send/receive time out with
 * no effect; close fails waiting senders and receivers and lets receivers drain; the
 * try-variants from a foreign pthread and from a ZWT; the typed wrapper; errors. */
#include <pthread.h>
#include <stdint.h>

#include "ito/ito.h"
#include "ito_test.h"

typedef struct item {
    uint64_t a, b;
    char tag[8];
} item_t;

ITO_CHAN_TYPED(item_chan, item_t)

static ito_attr_t on0;

static ito_thread_t spawn(void *(*fn)(void *), void *arg)
{
    ito_thread_t t;
    CHECK_OK(ito_create(&t, fn, arg, &on0));
    for (int i = 0; i < 3; i++) CHECK_OK(ito_yield()); /* let it run until it parks */
    return t;
}

static void check_fifo_try(void)
{
    ito_chan_t *c;
    CHECK_OK(ito_chan_create(&c, sizeof(uint32_t), 3));
    uint32_t in = 0, out = 0, x;
    for (int round = 0; round < 50; round++) {
        int sent = 0;
        while (ito_chan_try_send(c, &(uint32_t){in}) == ITO_OK) in++, sent++;
        CHECK(sent <= 3);
        CHECK_EQ(ito_chan_try_send(c, &in), ITO_EAGAIN);
        for (int k = 0; k < 1 + round % 3 && out < in; k++) {
            CHECK_OK(ito_chan_try_recv(c, &x));
            CHECK_EQ(x, out++);
        }
    }
    while (out < in) {
        CHECK_OK(ito_chan_recv(c, &x));
        CHECK_EQ(x, out++);
    }
    CHECK_EQ(ito_chan_try_recv(c, &x), ITO_EAGAIN);
    ito_chan_stats_t st;
    CHECK_OK(ito_chan_stats(c, &st));
    CHECK_EQ(st.item_size, sizeof(uint32_t));
    CHECK_EQ(st.capacity, 3);
    CHECK_EQ(st.count, 0);
    CHECK_EQ(st.sends_blocked + st.recvs_blocked, 0);
    CHECK_OK(ito_chan_destroy(c));
}

static void *send_three(void *arg)
{
    item_chan_t *c = arg;
    for (uint64_t i = 0; i < 3; i++) {
        item_t it = {i, ~i, "abcdefg"};
        CHECK_OK(item_chan_send(*c, &it));
    }
    return NULL;
}

static void *recv_one(void *arg)
{
    item_chan_t *c = arg;
    item_t it;
    int rc = item_chan_recv(*c, &it);
    return (void *)(intptr_t)(rc == ITO_OK ? (intptr_t)it.a : rc);
}

/* A full channel makes senders wait; a waiting receiver is handed the item. */
static void check_blocking(void)
{
    item_chan_t c;
    CHECK_OK(item_chan_create(&c, 1));
    ito_thread_t s = spawn(send_three, &c); /* sends 0, then waits with 1 */
    ito_chan_stats_t st;
    CHECK_OK(item_chan_stats(c, &st)); /* the typed form */
    CHECK_EQ(st.item_size, sizeof(item_t));
    CHECK_EQ(st.count, 1);
    CHECK_EQ(st.sends_blocked, 1);
    CHECK_EQ(item_chan_stats(c, NULL), ITO_EINVAL);
    item_t it;
    for (uint64_t i = 0; i < 3; i++) {
        CHECK_OK(item_chan_recv(c, &it));
        CHECK_EQ(it.a, i);
        CHECK_EQ(it.b, ~i);
        CHECK(strcmp(it.tag, "abcdefg") == 0);
    }
    CHECK_OK(ito_join(s, NULL));
    CHECK_OK(ito_chan_stats(c.chan, &st));
    uint64_t before = st.recvs_blocked;
    ito_thread_t r = spawn(recv_one, &c); /* waits on the empty channel */
    CHECK_OK(ito_chan_stats(c.chan, &st));
    CHECK_EQ(st.recvs_blocked, before + 1);
    it = (item_t){77, 0, ""};
    CHECK_OK(item_chan_try_send(c, &it)); /* straight to the waiting receiver */
    CHECK_OK(ito_chan_stats(c.chan, &st));
    CHECK_EQ(st.count, 0);
    void *rv;
    CHECK_OK(ito_join(r, &rv));
    CHECK_EQ((intptr_t)rv, 77);
    CHECK_OK(item_chan_destroy(c));
}

static void check_unbuffered(void)
{
    item_chan_t c;
    CHECK_OK(item_chan_create(&c, 0));
    item_t it = {5, 6, "x"};
    CHECK_EQ(item_chan_try_send(c, &it), ITO_EAGAIN); /* nobody receives */
    CHECK_EQ(item_chan_try_recv(c, &it), ITO_EAGAIN);
    CHECK_EQ(item_chan_send_until(c, &it, ito_deadline_in(1000000)), ITO_ETIMEDOUT);
    ito_thread_t r = spawn(recv_one, &c);
    it.a = 9;
    CHECK_OK(item_chan_try_send(c, &it)); /* a receiver waits: the rendezvous happens */
    void *rv;
    CHECK_OK(ito_join(r, &rv));
    CHECK_EQ((intptr_t)rv, 9);
    ito_thread_t s = spawn(send_three, &c); /* waits with item 0 */
    CHECK_OK(item_chan_try_recv(c, &it));     /* taken straight from the waiting sender */
    CHECK_EQ(it.a, 0);
    CHECK_OK(item_chan_recv(c, &it));
    CHECK_EQ(it.a, 1);
    CHECK_OK(item_chan_recv_until(c, &it, ito_deadline_in(1000000000)));
    CHECK_EQ(it.a, 2);
    CHECK_OK(ito_join(s, NULL));
    CHECK_OK(item_chan_destroy(c));
}

static void check_timeouts(void)
{
    ito_chan_t *c;
    CHECK_OK(ito_chan_create(&c, sizeof(int), 1));
    int v = 1, w = 0;
    CHECK_EQ(ito_chan_recv_until(c, &w, 0), ITO_ETIMEDOUT);
    CHECK_EQ(ito_chan_recv_until(c, &w, ito_deadline_in(1000000)), ITO_ETIMEDOUT);
    CHECK_OK(ito_chan_send_until(c, &v, 0)); /* room: a past deadline still sends */
    v = 2;
    CHECK_EQ(ito_chan_send_until(c, &v, ito_deadline_in(1000000)), ITO_ETIMEDOUT);
    CHECK_OK(ito_chan_recv(c, &w));
    CHECK_EQ(w, 1);
    CHECK_EQ(ito_chan_try_recv(c, &w), ITO_EAGAIN); /* the timed-out send left nothing */
    CHECK_OK(ito_chan_destroy(c));
}

static void *send_forever(void *arg)
{
    int v = 3;
    for (;;) {
        int rc = ito_chan_send(arg, &v);
        if (rc != ITO_OK) return (void *)(intptr_t)rc;
    }
}

static void *recv_raw(void *arg)
{
    int v;
    return (void *)(intptr_t)ito_chan_recv(arg, &v);
}

static void check_close(void)
{
    ito_chan_t *c;
    CHECK_OK(ito_chan_create(&c, sizeof(int), 2));
    ito_thread_t s1 = spawn(send_forever, c), s2 = spawn(send_forever, c);
    CHECK_OK(ito_chan_close(c));
    CHECK_EQ(ito_chan_close(c), ITO_ECLOSED);
    void *rv;
    CHECK_OK(ito_join(s1, &rv));
    CHECK_EQ((intptr_t)rv, ITO_ECLOSED);
    CHECK_OK(ito_join(s2, &rv));
    CHECK_EQ((intptr_t)rv, ITO_ECLOSED);
    int v = 0;
    CHECK_EQ(ito_chan_send(c, &v), ITO_ECLOSED);
    CHECK_EQ(ito_chan_try_send(c, &v), ITO_ECLOSED);
    CHECK_OK(ito_chan_recv(c, &v)); /* the two items sent before the close drain */
    CHECK_OK(ito_chan_try_recv(c, &v));
    CHECK_EQ(v, 3);
    CHECK_EQ(ito_chan_recv(c, &v), ITO_ECLOSED);
    CHECK_EQ(ito_chan_try_recv(c, &v), ITO_ECLOSED);
    CHECK_OK(ito_chan_destroy(c));
    /* Receivers waiting at the close. */
    CHECK_OK(ito_chan_create(&c, sizeof(int), 0));
    ito_thread_t r[3];
    for (int i = 0; i < 3; i++) r[i] = spawn(recv_raw, c);
    CHECK_EQ(ito_chan_destroy(c), ITO_EBUSY);
    CHECK_OK(ito_chan_close(c));
    for (int i = 0; i < 3; i++) {
        CHECK_OK(ito_join(r[i], &rv));
        CHECK_EQ((intptr_t)rv, ITO_ECLOSED);
    }
    CHECK_OK(ito_chan_destroy(c));
}

static void *foreign(void *arg)
{
    ito_chan_t *c = arg;
    int v = 11;
    CHECK_EQ(ito_chan_send(c, &v), ITO_ENOTULT);
    CHECK_EQ(ito_chan_recv_until(c, &v, 0), ITO_ENOTULT);
    CHECK_OK(ito_chan_try_send(c, &v)); /* to the ULT waiting in recv_raw */
    return NULL;
}

/* A ZWT may use the try-variants (it must not wait). */
static ito_chan_t *zchan;
static void zwt_sender(ito_frame_t *f, int entry, uint64_t value)
{
    (void)f, (void)entry;
    int v = (int)value;
    CHECK_OK(ito_chan_try_send(zchan, &v));
    CHECK_EQ(ito_chan_send(zchan, &v), ITO_ENOTULT);
}

static void check_foreign_and_zwt(void)
{
    ito_chan_t *c;
    CHECK_OK(ito_chan_create(&c, sizeof(int), 0));
    ito_thread_t r = spawn(recv_raw, c);
    pthread_t pt;
    CHECK_EQ(pthread_create(&pt, NULL, foreign, c), 0);
    CHECK_EQ(pthread_join(pt, NULL), 0);
    void *rv;
    CHECK_OK(ito_join(r, &rv));
    CHECK_EQ((intptr_t)rv, ITO_OK);
    CHECK_OK(ito_chan_destroy(c));
    CHECK_OK(ito_chan_create(&zchan, sizeof(int), 4));
    ito_frame_t *f;
    CHECK_OK(ito_frame_create(&f, 1, 0));
    CHECK_OK(ito_entry_set(f, 0, zwt_sender, 1, ITO_MODE_USER));
    CHECK_OK(ito_continue_value(f, 0, 123));
    int v = 0;
    CHECK_OK(ito_chan_recv(zchan, &v));
    CHECK_EQ(v, 123);
    CHECK_OK(ito_frame_destroy(f));
    CHECK_OK(ito_chan_destroy(zchan));
}

static void check_errors(void)
{
    ito_chan_t *c;
    CHECK_EQ(ito_chan_create(NULL, 4, 4), ITO_EINVAL);
    CHECK_EQ(ito_chan_create(&c, 0, 4), ITO_EINVAL);
    CHECK_EQ(ito_chan_create(&c, ITO_CHAN_MAX_ITEM + 1, 4), ITO_EINVAL);
    CHECK_EQ(ito_chan_create(&c, 1024, (size_t)1 << 21), ITO_EINVAL); /* 2 GiB */
    CHECK_EQ(ito_chan_create(&c, 8, SIZE_MAX), ITO_EINVAL);
    CHECK_OK(ito_chan_create(&c, 8, 1));
    uint64_t v = 0;
    CHECK_EQ(ito_chan_send(NULL, &v), ITO_EINVAL);
    CHECK_EQ(ito_chan_send(c, NULL), ITO_EINVAL);
    CHECK_EQ(ito_chan_recv(c, NULL), ITO_EINVAL);
    CHECK_EQ(ito_chan_send_until(NULL, &v, 0), ITO_EINVAL);
    CHECK_EQ(ito_chan_recv_until(NULL, &v, 0), ITO_EINVAL);
    CHECK_EQ(ito_chan_try_send(c, NULL), ITO_EINVAL);
    CHECK_EQ(ito_chan_try_recv(NULL, &v), ITO_EINVAL);
    CHECK_EQ(ito_chan_close(NULL), ITO_EINVAL);
    CHECK_EQ(ito_chan_destroy(NULL), ITO_EINVAL);
    CHECK_EQ(ito_chan_stats(c, NULL), ITO_EINVAL);
    CHECK_OK(ito_chan_destroy(c));
}

int main(void)
{
    CHECK_OK(ito_init(NULL));
    CHECK_OK(ito_attr_init(&on0));
    on0.worker = 0;
    check_errors();
    check_fifo_try();
    check_blocking();
    check_unbuffered();
    check_timeouts();
    check_close();
    check_foreign_and_zwt();
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
