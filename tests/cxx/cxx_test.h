// tests/cxx/cxx_test.h: the shared helper of the C++ test programs in tests/cxx (the
// C tests' is tests/ito_test.h): check() records a failed expectation and names it;
// run_pair() runs two ULTs to their end.
#ifndef ITO_CXX_TEST_H
#define ITO_CXX_TEST_H

#include <cstdio>

#include <ito/ito.h>

inline int cxx_test_failures;

inline void check(bool ok, const char *what)
{
    if (!ok) {
        std::fprintf(stderr, "FAIL: %s\n", what);
        cxx_test_failures++;
    }
}

// Creates ULTs running a and b (in that order, on the caller's worker) and joins both;
// false if a create fails.
inline bool run_pair(void *(*a)(void *), void *(*b)(void *))
{
    ito_thread_t ta, tb;
    if (ito_create(&ta, a, nullptr, nullptr) != ITO_OK || ito_create(&tb, b, nullptr, nullptr) != ITO_OK)
        return false;
    ito_join(ta, nullptr);
    ito_join(tb, nullptr);
    return true;
}

#endif
