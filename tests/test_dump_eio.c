/* test_dump_eio: ito_dump_threads says ITO_EIO when writing to `out` fails (debug.h), for
 * a stream whose writes fail at once (/dev/full, once its buffer is flushed) and one opened
 * for reading only; ITO_EINVAL for NULL; ITO_ESTATE without a runtime (h60b's API table,
 * 2026-12-05: the ITO_EIO row was MISSING). */
#include <stdio.h>

#include "ito/debug.h"
#include "ito/ito.h"
#include "ito_test.h"

int main(void)
{
    CHECK_EQ(ito_dump_threads(stdout), ITO_ESTATE);
    CHECK_OK(ito_init(&(ito_config_t){.workers = 2}));
    CHECK_EQ(ito_dump_threads(NULL), ITO_EINVAL);
    FILE *full = fopen("/dev/full", "w");
    CHECK(full != NULL);
    CHECK_EQ(ito_dump_threads(full), ITO_EIO);
    fclose(full);
    FILE *ro = fopen("/dev/null", "r");
    CHECK(ro != NULL);
    CHECK_EQ(ito_dump_threads(ro), ITO_EIO);
    fclose(ro);
    FILE *ok = fopen("/dev/null", "w");
    CHECK(ok != NULL);
    CHECK_OK(ito_dump_threads(ok));
    fclose(ok);
    CHECK_OK(ito_finalize());
    CHECK_EQ(ito_dump_threads(stdout), ITO_ESTATE);
    TEST_DONE();
}
