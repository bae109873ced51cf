/* feed.h: the stream of decoded audio between the decoder thread and the player thread.
 *
 * The decoder writes interleaved 16-bit frames into buf and then publishes how many are
 * complete (release); the player reads only published frames (acquire). The buffer holds
 * the whole stream (its length is known from the Ogg file), so the decoder never waits:
 * as on the paper's processor, it decodes as fast as it can, and the player takes one
 * frame per sample period. One writer, one reader, any interleaving (a switch may come
 * between any two instructions of the decoder under timer preemption). */
#ifndef PLY_FEED_H
#define PLY_FEED_H

#include <stddef.h>
#include <stdint.h>

typedef struct ply_feed {
    int16_t *buf;            /* cap_frames * channels */
    size_t cap_frames;
    int channels, rate;
    _Atomic size_t published; /* frames complete */
    _Atomic int done;         /* 1: the decoder has finished (error < 0) */
    int error;
} ply_feed_t;

/* Open the Ogg Vorbis stream in memory and fill feed->channels, ->rate and ->cap_frames.
 * Returns a decoder handle, or NULL (feed->error set). */
void *ply_decoder_open(const unsigned char *ogg, int len, ply_feed_t *feed);
/* Decode the whole stream into feed->buf (allocated by the caller with cap_frames),
 * publishing as it goes; sets done. Returns the number of frames, or < 0. */
long ply_decode(void *dec, ply_feed_t *feed);
void ply_decoder_close(void *dec);

#endif
