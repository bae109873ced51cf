/* test_regwin_attach_configure_race: ito_regwin_configure from a foreign thread (allowed:
 * "any thread") while the main ULT attaches and detaches the emulation. regwin.h promises
 * attach ITO_OK, or ITO_ESTATE when the configured scheme is OFF; ITO_ENOMEM only when
 * memory ran out. attach looked at the scheme in one snapshot of the configuration and
 * then built worker 0's window file from the configuration installed by then: a configure
 * to OFF between the two made the file maker return no file and no error, and attach said
 * ITO_ENOMEM with memory to spare (also, a configure to another scheme or window count
 * there built the files from a configuration other than the one attach had checked and
 * taken working_set from). Now every file is built from attach's snapshot. Found by an
 * outside tester's concurrent misuse program, h66b, 2026-12-06 (2 to 30 ITO_ENOMEM in
 * 200,000 attaches). Bounded: at most ATTACHES attaches or 5 s. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>

#include "ito/ito.h"
#include "ito/regwin.h"
#include "ito_test.h"

#define ATTACHES 1000000

static atomic_int stop;
static atomic_long bad_configure;

static void *toggler(void *arg)
{
    (void)arg;
    ito_regwin_config_t c;
    ito_regwin_config_init(&c);
    for (unsigned k = 0; !atomic_load(&stop); k++) {
        c.scheme = (k & 1) ? ITO_REGWIN_NS : ITO_REGWIN_OFF;
        int rc = ito_regwin_configure(&c);
        if (rc != ITO_OK && rc != ITO_ESTATE) atomic_fetch_add(&bad_configure, 1);
    }
    return NULL;
}

int main(void)
{
    ito_config_t cfg = {.workers = 2};
    CHECK_OK(ito_init(&cfg));
    pthread_t p;
    CHECK(pthread_create(&p, NULL, toggler, NULL) == 0);
    long ok = 0, off = 0, other = 0;
    uint64_t end = ito_deadline_in(5ull * 1000 * 1000 * 1000);
    for (int i = 0; i < ATTACHES && ito_now_ns() < end; i++) {
        int rc = ito_regwin_attach();
        if (rc == ITO_OK) {
            ok++;
            CHECK_OK(ito_regwin_detach());
        } else if (rc == ITO_ESTATE) {
            off++;
        } else {
            if (other++ < 5) fprintf(stderr, "attach: %d (%s)\n", rc, ito_strerror(rc));
        }
    }
    atomic_store(&stop, 1);
    CHECK(pthread_join(p, NULL) == 0);
    fprintf(stderr, "attaches: %ld ok, %ld ITO_ESTATE, %ld other\n", ok, off, other);
    CHECK_EQ(other, 0);
    CHECK_EQ(atomic_load(&bad_configure), 0);
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
