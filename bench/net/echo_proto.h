/* echo_proto.h: the message format of the loopback echo benchmark, shared by the client
 * and the C servers. A message is 64 bytes: the connection number, the sequence number
 * and 56 bytes that both determine. The servers treat the stream as bytes (they echo
 * what they read); the client checks every byte of every message it gets back. */
#ifndef ITO_BENCH_ECHO_PROTO_H
#define ITO_BENCH_ECHO_PROTO_H

#include <stdint.h>
#include <string.h>

#define ECHO_MSG 64

static inline void echo_fill(unsigned char *m, uint32_t conn, uint32_t seq)
{
    memcpy(m, &conn, 4);
    memcpy(m + 4, &seq, 4);
    uint64_t x = ((uint64_t)conn << 32 | seq) * 0x9E3779B97F4A7C15ull;
    for (int i = 8; i < ECHO_MSG; i++) {
        x ^= x >> 29;
        x *= 0xBF58476D1CE4E5B9ull;
        m[i] = (unsigned char)(x >> 56);
    }
}

#endif
