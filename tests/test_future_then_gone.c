/* test_future_then_gone: a continuation whose frame is gone can never fire, so it does not
 * hold its future: ito_future_destroy drops it (future.h). Found by an outside tester (h58c,
 * 2026-12-05): after ito_future_then and ito_finalize, set said ITO_ESTATE and destroy
 * ITO_EBUSY for ever, and the continuation's node leaked (LeakSanitizer). Also a frame
 * destroyed while running; a live frame still holds the future (ITO_EBUSY). */
#include "ito/ito.h"
#include "ito_test.h"

static void body(ito_frame_t *f, int e, uint64_t v)
{
    (void)f, (void)e, (void)v;
}

int main(void)
{
    CHECK_OK(ito_init(NULL));
    ito_future_t a, b;
    ito_frame_t *fa, *fb;
    CHECK_OK(ito_future_init(&a));
    CHECK_OK(ito_future_init(&b));
    CHECK_OK(ito_frame_create(&fa, 2, 0));
    CHECK_OK(ito_frame_create(&fb, 1, 0));
    CHECK_OK(ito_entry_set(fa, 0, body, 1, ITO_MODE_USER));
    CHECK_OK(ito_entry_set(fa, 1, body, 1, ITO_MODE_USER));
    CHECK_OK(ito_entry_set(fb, 0, body, 1, ITO_MODE_USER));

    /* running: a live frame holds the future; once destroyed it does not */
    CHECK_OK(ito_future_then(&a, fa, 0));
    CHECK_OK(ito_future_then(&a, fb, 0));
    CHECK_EQ(ito_future_destroy(&a), ITO_EBUSY);
    CHECK_OK(ito_frame_destroy(fb));
    CHECK_EQ(ito_future_destroy(&a), ITO_EBUSY); /* fa is live */
    CHECK_OK(ito_future_then(&a, fa, 1));
    CHECK_OK(ito_frame_destroy(fa));
    CHECK_OK(ito_future_destroy(&a));          /* both frames gone: nodes freed */
    CHECK_EQ(ito_future_destroy(&a), ITO_EINVAL);

    /* finalize frees the frames: the future can be destroyed afterwards */
    CHECK_OK(ito_frame_create(&fa, 1, 0));
    CHECK_OK(ito_entry_set(fa, 0, body, 1, ITO_MODE_USER));
    CHECK_OK(ito_future_then(&b, fa, 0));
    CHECK_OK(ito_finalize());
    CHECK_EQ(ito_future_set(&b, 1), ITO_ESTATE);
    CHECK_OK(ito_future_destroy(&b));          /* was ITO_EBUSY, and the node leaked */
    TEST_DONE();
}
