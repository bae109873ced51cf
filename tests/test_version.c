/* test_version: the version macros, ito_version() and the build's project() version agree.
 *  - ITO_VERSION_STRING is "MAJOR.MINOR.PATCH" of the three macros, and ITO_VERSION_NUMBER
 *    is MAJOR * 10000 + MINOR * 100 + PATCH;
 *  - ito_version() returns the same string and fills the same numbers, accepts NULL for
 *    any of its pointers, and needs no runtime (called before ito_init and after
 *    ito_finalize, and from a ULT);
 *  - the string equals CMake's PROJECT_VERSION (ITO_TEST_PROJECT_VERSION, set by
 *    tests/CMakeLists.txt). */
#include <stdio.h>
#include <string.h>

#include "ito/ito.h"
#include "ito_test.h"

static void check_version(void)
{
    int ma = -1, mi = -1, pa = -1;
    const char *s = ito_version(&ma, &mi, &pa);
    CHECK(s != NULL);
    CHECK(strcmp(s, ITO_VERSION_STRING) == 0);
    CHECK_EQ(ma, ITO_VERSION_MAJOR);
    CHECK_EQ(mi, ITO_VERSION_MINOR);
    CHECK_EQ(pa, ITO_VERSION_PATCH);
    CHECK(ito_version(NULL, NULL, NULL) == s);
    int only = -1;
    CHECK(ito_version(NULL, &only, NULL) == s);
    CHECK_EQ(only, ITO_VERSION_MINOR);
}

static void *in_ult(void *arg)
{
    (void)arg;
    check_version();
    return NULL;
}

int main(void)
{
    char built[64];
    snprintf(built, sizeof built, "%d.%d.%d", ITO_VERSION_MAJOR, ITO_VERSION_MINOR, ITO_VERSION_PATCH);
    CHECK(strcmp(built, ITO_VERSION_STRING) == 0);
    CHECK_EQ(ITO_VERSION_NUMBER, ITO_VERSION_MAJOR * 10000 + ITO_VERSION_MINOR * 100 + ITO_VERSION_PATCH);
    CHECK(ITO_VERSION_MINOR < 100 && ITO_VERSION_PATCH < 100); /* else the number is ambiguous */
    CHECK(strcmp(ITO_VERSION_STRING, ITO_TEST_PROJECT_VERSION) == 0);
#if ITO_VERSION_NUMBER < 0
#error "ITO_VERSION_NUMBER must be usable in #if"
#endif

    check_version(); /* before ito_init */
    ito_test_main_ult(NULL, in_ult);
    check_version(); /* after ito_finalize */
    TEST_DONE();
}
