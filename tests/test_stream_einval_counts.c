/* test_stream_einval_counts: the stream calls that report a count set it to 0 on every
 * error, ITO_EINVAL included (sync.h: "*got receives the number of bytes got (0 on any
 * error)"; try_put's *put likewise). Found by an API audit (2026-12-05): ITO_EINVAL left
 * the caller's value there for a NULL buffer, a NULL or destroyed handle. */
#include "ito/ito.h"
#include "ito_test.h"

int main(void)
{
    CHECK_OK(ito_init(&(ito_config_t){.workers = 1}));
    ito_stream_t *s, *dead;
    CHECK_OK(ito_stream_create(&s, 64));
    CHECK_OK(ito_stream_create(&dead, 64));
    CHECK_OK(ito_stream_destroy(dead));
    char buf[8] = {0};
    ito_stream_t *bad[] = {s, NULL, dead};
    for (int i = 0; i < 3; i++) {
        const void *b = i == 0 ? NULL : buf; /* i == 0: a NULL buffer with len > 0 */
        size_t n = 77;
        CHECK_EQ(ito_stream_get(bad[i], (void *)b, sizeof buf, &n), ITO_EINVAL);
        CHECK_EQ(n, 0);
        n = 77;
        CHECK_EQ(ito_stream_get_until(bad[i], (void *)b, sizeof buf, &n, ito_now_ns() + 1000000), ITO_EINVAL);
        CHECK_EQ(n, 0);
        n = 77;
        CHECK_EQ(ito_stream_try_get(bad[i], (void *)b, sizeof buf, &n), ITO_EINVAL);
        CHECK_EQ(n, 0);
        n = 77;
        CHECK_EQ(ito_stream_try_put(bad[i], b, sizeof buf, &n), ITO_EINVAL);
        CHECK_EQ(n, 0);
        n = 77;
        CHECK_EQ(ito_stream_put_until(bad[i], b, sizeof buf, &n, ito_now_ns() + 1000000), ITO_EINVAL);
        CHECK_EQ(n, 0);
    }
    /* the stream itself is untouched by the refusals */
    size_t n = 0;
    CHECK_OK(ito_stream_try_put(s, "abc", 3, &n));
    CHECK_EQ(n, 3);
    CHECK_OK(ito_stream_try_get(s, buf, sizeof buf, &n));
    CHECK_EQ(n, 3);
    CHECK_OK(ito_stream_destroy(s));
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
