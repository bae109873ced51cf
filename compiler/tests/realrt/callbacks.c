/* callbacks.c: callbacks that glibc calls with a lock of its own held get no yield point
 * (compiler/plugin/Safety.cpp, LockedRegistrars): a printf conversion (the stream's lock),
 * a fopencookie writer (the stream's lock) and a dl_iterate_phdr callback (the loader's
 * recursive lock), each with a long loop. Built with the plugin; callbacks_main.c (without
 * it) runs cb_round() in 8 ULTs on 2 workers under FLAG preemption. With points inside
 * them, a ULT switched out there kept the lock: the next ULT on that worker went into the
 * same stream (the kernel thread owns its lock), so their lines interleaved (237 of 240 at
 * -O0), and dl_iterate_phdr's lock stayed with the old worker's kernel thread after a move
 * (its unlock from the new one failed), so the next dl_iterate_phdr on another worker
 * blocked for ever (6 runs of 9 hung). Found by an outside tester, h78c, 2026-12-08. */
#define _GNU_SOURCE
#include <link.h>
#include <printf.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static volatile uint64_t sink;
static void burn(long n)
{
    uint64_t x = (uint64_t)n;
    for (long i = 0; i < n; i++) x = x * 6364136223846793005ull + 1442695040888963407ull;
    sink = x;
}

/* "%W" of id prints "<id:id>", in two writes with a loop between */
static int conv(FILE *f, const struct printf_info *info, const void *const *args)
{
    (void)info;
    int v = **(const int *const *)args;
    int n = fprintf(f, "<%d", v);
    burn(100000);
    return n + fprintf(f, ":%d>", v);
}
static int conv_info(const struct printf_info *info, size_t n, int *types, int *sizes)
{
    (void)info;
    (void)sizes;
    if (n > 0) types[0] = PA_INT;
    return 1;
}

/* the cookie stream's writer appends to cb_text with a loop between reading and
 * advancing the end: two writers at once lose text */
char cb_text[1 << 16];
static size_t text_end;
static ssize_t cookie_write(void *c, const char *b, size_t n)
{
    (void)c;
    size_t at = text_end;
    if (at + n >= sizeof cb_text) return -1;
    memcpy(cb_text + at, b, n);
    burn(20000);
    text_end = at + n;
    return (ssize_t)n;
}

static int phdr_cb(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)info;
    (void)size;
    burn(20000);
    ++*(long *)data;
    return 0;
}

FILE *cb_shared, *cb_cookie;

int cb_setup(FILE *shared)
{
    cookie_io_functions_t io = {.write = cookie_write};
    cb_shared = shared;
    cb_cookie = fopencookie(NULL, "w", io);
    if (!cb_cookie || setvbuf(cb_cookie, NULL, _IOLBF, 0) != 0) return -1;
    return register_printf_specifier('W', conv, conv_info);
}

/* one round of ULT id: a conversion into the shared stream, a line into the cookie
 * stream, a walk of the loaded objects; returns how many objects it saw */
long cb_round(int id)
{
    long objs = 0;
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wformat"
#pragma clang diagnostic ignored "-Wformat-extra-args"
    fprintf(cb_shared, "%W\n", id);
#pragma clang diagnostic pop
    fprintf(cb_cookie, "line %d\n", id);
    dl_iterate_phdr(phdr_cb, &objs);
    return objs;
}
