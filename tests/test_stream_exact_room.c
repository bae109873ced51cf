/* test_stream_exact_room: a put of at most the capacity that waits for room is woken when
 * the gets leave exactly the room it needs (sync.h: "written in one step once there is
 * room for all of it"). A wake-up rule of `more room than needed` left such a writer
 * waiting for ever once the reader had emptied the stream and waited for the writer's
 * bytes (found by mutation testing, h60e, 2026-12-05). Also a room made in two gets, and a
 * long put (over the capacity) whose remainder is exactly the capacity. */
#define _GNU_SOURCE
#include <stdbool.h>
#include <string.h>

#include "ito/ito.h"
#include "ito/sync.h"
#include "ito_test.h"

#define CAP 8

static ito_stream_t *s;
static int put_rc;

static void *writer(void *arg)
{
    size_t len = (size_t)(uintptr_t)arg;
    unsigned char buf[4 * CAP];
    for (size_t i = 0; i < len; i++) buf[i] = (unsigned char)(100 + i);
    put_rc = ito_stream_put(s, buf, len); /* no deadline: only the gets' room can end it */
    return NULL;
}

/* Gets exactly n bytes (each get waits at most 2 s) into out; false if they did not come. */
static bool get_n(unsigned char *out, size_t n)
{
    size_t have = 0;
    while (have < n) {
        size_t got = 0;
        int rc = ito_stream_get_until(s, out + have, n - have, &got, ito_deadline_in(2000000000ull));
        CHECK_EQ(rc, ITO_OK);
        if (rc != ITO_OK) return false;
        have += got;
    }
    return true;
}

/* The stream full of CAP bytes, a writer of len waiting; the reader takes the CAP bytes in
 * the given pieces, then the writer's len. */
static void round_of(size_t len, size_t first_piece)
{
    CHECK_OK(ito_stream_create(&s, CAP));
    unsigned char fill[CAP], got[4 * CAP];
    for (int i = 0; i < CAP; i++) fill[i] = (unsigned char)i;
    size_t n = 0;
    CHECK_OK(ito_stream_try_put(s, fill, CAP, &n));
    CHECK_EQ(n, (size_t)CAP);
    ito_thread_t w;
    CHECK_OK(ito_create(&w, writer, (void *)(uintptr_t)len, NULL));
    for (int i = 0; i < 5; i++) CHECK_OK(ito_yield()); /* the writer waits for room */
    get_n(got, first_piece);
    if (first_piece < CAP) get_n(got + first_piece, CAP - first_piece);
    for (int i = 0; i < CAP; i++) CHECK_EQ(got[i], (unsigned char)i);
    if (get_n(got, len)) { /* the writer's bytes: it must have been woken */
        for (size_t i = 0; i < len; i++) CHECK_EQ(got[i], (unsigned char)(100 + i));
    } else {
        CHECK_OK(ito_stream_close(s)); /* the writer, never woken, ends with ITO_ECLOSED */
    }
    CHECK_OK(ito_join(w, NULL));
    CHECK_EQ(put_rc, ITO_OK);
    CHECK_OK(ito_stream_destroy(s));
}

static void *body(void *arg)
{
    (void)arg;
    round_of(CAP, CAP);         /* needs the whole capacity, made in one get */
    round_of(CAP, 3);           /* ... in two gets */
    round_of(CAP / 2, CAP / 2); /* needs half, made exactly */
    round_of(CAP + CAP, CAP);   /* a long put: the first CAP when emptied, then the rest */
    return NULL;
}

int main(void)
{
    ito_test_main_ult(&(ito_config_t){.workers = 1}, body);
    TEST_DONE();
}
