/* decoder.c: the decoder thread's code, stb_vorbis (Debian libstb-dev) with a loop that
 * writes into the feed. This unit is what the variants build differently (ito-cc
 * --ito-off / --ito-variant=full|abi|min); everything else of the player is built once. */
#include "feed.h"

#include <stdatomic.h>

#include <stb/stb_vorbis.h> /* the header is the implementation (no STB_VORBIS_HEADER_ONLY) */

enum { PLY_CHUNK_FRAMES = 1024 };

void *ply_decoder_open(const unsigned char *ogg, int len, ply_feed_t *feed)
{
    int err = 0;
    stb_vorbis *v = stb_vorbis_open_memory(ogg, len, &err, NULL);
    if (!v) {
        feed->error = -err - 1;
        return NULL;
    }
    stb_vorbis_info info = stb_vorbis_get_info(v);
    feed->channels = info.channels;
    feed->rate = (int)info.sample_rate;
    feed->cap_frames = stb_vorbis_stream_length_in_samples(v);
    return v;
}

long ply_decode(void *dec, ply_feed_t *feed)
{
    stb_vorbis *v = dec;
    size_t pos = 0;
    int ch = feed->channels;
    while (pos < feed->cap_frames) {
        size_t want = feed->cap_frames - pos;
        if (want > PLY_CHUNK_FRAMES) want = PLY_CHUNK_FRAMES;
        int n = stb_vorbis_get_samples_short_interleaved(v, ch, feed->buf + pos * (size_t)ch,
                                                         (int)want * ch);
        if (n <= 0) break;
        pos += (size_t)n;
        atomic_store_explicit(&feed->published, pos, memory_order_release);
    }
    atomic_store_explicit(&feed->done, 1, memory_order_release);
    return (long)pos;
}

void ply_decoder_close(void *dec)
{
    stb_vorbis_close(dec);
}
