/* fuzz_util.h: what the libFuzzer harnesses share: the input being decoded (byte() reads
 * its next byte, 0 past its end), and the two checks: check() for a return value that
 * must be ITO_OK or one of ito's error codes, require() for a property of the run. */
#ifndef ITO_FUZZ_UTIL_H
#define ITO_FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "ito/ito.h"

static const uint8_t *in;
static size_t in_n, in_at;

static inline void fuzz_begin(const uint8_t *data, size_t size)
{
    in = data;
    in_n = size;
    in_at = 0;
}

static inline unsigned byte(void) { return in_at < in_n ? in[in_at++] : 0; }

static inline void require(int cond)
{
    if (!cond) abort();
}

static inline void check(int rc)
{
    require(rc == ITO_OK || (rc < 0 && rc >= ITO_EIO)); /* ITO_OK or one of ito's codes */
}

#endif
