/* test_frame_create_bounds: ito_frame_create refuses one past each documented range
 * (zwt.h: nentries 1 .. ITO_FRAME_MAX_ENTRIES, data_size 0 .. 1 GiB) with ITO_EINVAL.
 * Only far-out values were tested: bounds moved to ITO_FRAME_MAX_ENTRIES + 1 entries or a
 * 2 GiB data area passed every test (found by mutation testing, h60e, 2026-12-05). The
 * largest valid sizes are not created (a GiB each); small valid ones are. */
#include <limits.h>
#include <stdint.h>

#include "ito/ito.h"
#include "ito_test.h"

static void refused(int nentries, size_t data_size)
{
    ito_frame_t *f = NULL;
    int rc = ito_frame_create(&f, nentries, data_size);
    CHECK_EQ(rc, ITO_EINVAL);
    if (rc == ITO_OK) CHECK_OK(ito_frame_destroy(f));
}

int main(void)
{
    CHECK_OK(ito_init(&(ito_config_t){.workers = 1}));
    refused(ITO_FRAME_MAX_ENTRIES + 1, 0);
    refused(ITO_FRAME_MAX_ENTRIES * 2, 0);
    refused(INT_MAX, 0);
    refused(0, 0);
    refused(-1, 0);
    refused(1, ((size_t)1 << 30) + 1);
    refused(1, (size_t)1 << 31);
    refused(1, SIZE_MAX);
    ito_frame_t *f;
    CHECK_OK(ito_frame_create(&f, 1, 0));
    CHECK_OK(ito_frame_destroy(f));
    CHECK_OK(ito_frame_create(&f, 1024, 4096));
    CHECK(ito_frame_data(f) != NULL);
    CHECK_OK(ito_frame_destroy(f));
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
