// tests/cxx/cxx_test.h: the shared helper of the C++ test programs in tests/cxx (the
// C tests' is tests/ito_test.h): check() records a failed expectation and names it.
#ifndef ITO_CXX_TEST_H
#define ITO_CXX_TEST_H

#include <cstdio>

inline int cxx_test_failures;

inline void check(bool ok, const char *what)
{
    if (!ok) {
        std::fprintf(stderr, "FAIL: %s\n", what);
        cxx_test_failures++;
    }
}

#endif
