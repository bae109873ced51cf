/* test_stream_put_stats_once: ito_stream_stats counts the puts that had to wait, each once
 * ("How many puts and gets had to wait", sync.h): a put longer than the capacity that waits
 * for room several times, as the reader makes it, is one put that waited.
 * test_stream_stats_once checks the get side; counting every wait of a put's loop passed
 * every test (found by mutation testing, h60e, 2026-12-05). */
#include "ito/ito.h"
#include "ito/sync.h"
#include "ito_test.h"

#define CAP 16

static ito_stream_t *st;

static void *reader(void *arg)
{
    (void)arg;
    unsigned char b[4];
    size_t total = 0;
    while (total < 8 * CAP) {
        size_t n = 0;
        CHECK_OK(ito_stream_get(st, b, sizeof b, &n)); /* small gets: room comes in pieces */
        for (size_t i = 0; i < n; i++) CHECK_EQ(b[i], (unsigned char)(total + i));
        total += n;
        CHECK_OK(ito_yield());
    }
    return NULL;
}

static void *body(void *arg)
{
    (void)arg;
    unsigned char data[8 * CAP];
    for (int i = 0; i < 8 * CAP; i++) data[i] = (unsigned char)i;
    CHECK_OK(ito_stream_create(&st, CAP));
    ito_thread_t r;
    CHECK_OK(ito_create(&r, reader, NULL, NULL));
    CHECK_OK(ito_stream_put(st, data, sizeof data)); /* waits for room again and again */
    CHECK_OK(ito_join(r, NULL));
    uint64_t puts = 0, gets = 0;
    CHECK_OK(ito_stream_stats(st, &puts, &gets));
    CHECK_EQ(puts, 1u);
    CHECK_OK(ito_stream_destroy(st));
    return NULL;
}

int main(void)
{
    ito_test_main_ult(&(ito_config_t){.workers = 1}, body);
    TEST_DONE();
}
