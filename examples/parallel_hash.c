/* parallel_hash: hash every file of a directory with a bounded pool of ULTs, each file read
 * in batches of positioned reads that one ULT submits together (ito_sys_wait_all: the
 * paper's batching by one thread), with a deadline for the whole run and a stop on the
 * first error.
 *
 * The program makes its own directory of FILES files (sizes 0 to about 200 KiB, made
 * with plain write(2) before ito_init), then:
 *  - POOL hasher ULTs take file indices from a typed channel; each opens its file with
 *    ito_openat, reads it BATCH chunks at a time (BATCH ITO_SYS_PREAD requests posted and
 *    waited for together), hashes it (FNV-1a) and closes it with ito_close;
 *  - every hasher works under the run's deadline (ito_io_deadline for its I/O, the
 *    channel's recv_until for its next index); the first error closes the channel and
 *    cancels the other hashers' I/O (ito_cancel_io), so the pool stops at once;
 *  - main feeds the indices, joins the pool, and checks each hash against a sequential
 *    read of the same file.
 * Then a second round with one file removed: the pool stops at its first error.
 *
 *   parallel_hash          prints "parallel_hash: 240 files, 24406680 bytes, hashes match, a missing file stops the pool: No such file or directory"
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ito/ito.h>

#define FILES 240
#define POOL 8
#define CHUNK (16 << 10)
#define BATCH 4
#define DEADLINE_NS (60ull * 1000000000ull)

typedef struct file {
    char path[64];
    uint64_t hash;
    size_t size;
} file_t;

ITO_CHAN_TYPED(index_chan, size_t)

static file_t files[FILES];
static index_chan_t work;
static ito_thread_t pool[POOL];
static uint64_t deadline;
static _Atomic int first_error; /* errno of the first failure, 0 while none */

static uint64_t fnv1a(uint64_t h, const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 1099511628211ull;
    return h;
}
#define FNV_START 14695981039346656037ull

/* The first error stops the pool: no new index, and the others' I/O is cancelled. */
static void stop_pool(int err)
{
    int none = 0;
    if (!atomic_compare_exchange_strong(&first_error, &none, err)) return;
    index_chan_close(work);
    for (int k = 0; k < POOL; k++)
        if (pool[k] != ito_self()) ito_cancel_io(pool[k]);
}

/* Hashes f with batches of positioned reads. 0, or an errno. */
static int hash_file(file_t *f)
{
    int fd = ito_openat(AT_FDCWD, f->path, O_RDONLY | O_CLOEXEC, 0);
    if (fd < 0) return errno;
    unsigned char (*chunks)[CHUNK] = malloc(BATCH * CHUNK); /* the ULT's own (not per worker: a ULT may move) */
    if (!chunks) {
        ito_close(fd);
        return ENOMEM;
    }
    uint64_t h = FNV_START;
    size_t size = 0;
    int err = 0;
    for (bool end = false; !end && !err;) {
        ito_sysreq_t rq[BATCH];
        long res[BATCH];
        memset(rq, 0, sizeof rq);
        for (int k = 0; k < BATCH; k++) {
            rq[k].op = ITO_SYS_PREAD;
            rq[k].fd = fd;
            rq[k].buf = chunks[k];
            rq[k].len = CHUNK;
            rq[k].offset = (int64_t)(size + (size_t)k * CHUNK);
            rq[k].result = &res[k];
        }
        int rc = ito_sys_wait_all(rq, BATCH);
        if (rc != ITO_OK) {
            err = EIO;
            break;
        }
        for (int k = 0; k < BATCH && !end; k++) {
            if (res[k] < 0) {
                err = (int)-res[k]; /* ETIMEDOUT, ECANCELED, or the read's own error */
                break;
            }
            h = fnv1a(h, chunks[k], (size_t)res[k]);
            size += (size_t)res[k];
            end = res[k] < CHUNK;
        }
    }
    free(chunks);
    if (ito_close(fd) != 0 && !err) err = errno;
    f->hash = h;
    f->size = size;
    return err;
}

static void *hasher(void *arg)
{
    (void)arg;
    ito_io_deadline(deadline);
    size_t i;
    while (atomic_load(&first_error) == 0) {
        int rc = index_chan_recv_until(work, &i, deadline);
        if (rc == ITO_ECLOSED) break; /* all fed, or stopped */
        if (rc != ITO_OK) {
            stop_pool(rc == ITO_ETIMEDOUT ? ETIMEDOUT : EIO);
            break;
        }
        int err = hash_file(&files[i]);
        if (err) stop_pool(err);
    }
    return NULL;
}

/* One run of the pool over every file: 0, or the first error's errno. */
static int run_pool(void)
{
    atomic_store(&first_error, 0);
    deadline = ito_deadline_in(DEADLINE_NS);
    if (index_chan_create(&work, 2 * POOL) != ITO_OK) return ENOMEM;
    for (int k = 0; k < POOL; k++)
        if (ito_create(&pool[k], hasher, NULL, NULL) != ITO_OK) return EAGAIN;
    for (size_t i = 0; i < FILES && atomic_load(&first_error) == 0; i++)
        if (index_chan_send_until(work, &i, deadline) != ITO_OK) break; /* closed by a stop, or late */
    index_chan_close(work);
    for (int k = 0; k < POOL; k++) ito_join(pool[k], NULL);
    index_chan_destroy(work);
    return atomic_load(&first_error);
}

/* The same hash by plain sequential reads. */
static bool matches(const file_t *f)
{
    int fd = open(f->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    unsigned char b[CHUNK];
    uint64_t h = FNV_START;
    size_t size = 0;
    ssize_t n;
    while ((n = read(fd, b, sizeof b)) > 0) {
        h = fnv1a(h, b, (size_t)n);
        size += (size_t)n;
    }
    close(fd);
    return n == 0 && h == f->hash && size == f->size;
}

int main(void)
{
    char dir[] = "/tmp/parallel_hash_XXXXXX";
    if (!mkdtemp(dir)) return 1;
    static unsigned char data[210 << 10];
    uint32_t x = 12345;
    for (size_t i = 0; i < sizeof data; i++) data[i] = (unsigned char)((x = x * 1103515245u + 12345u) >> 16);
    size_t total = 0;
    for (int i = 0; i < FILES; i++) {
        snprintf(files[i].path, sizeof files[i].path, "%s/f%03d", dir, i);
        size_t size = (size_t)i * 851u; /* 0 .. 203,489 bytes */
        int fd = open(files[i].path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (fd < 0 || write(fd, data + i, size) != (ssize_t)size) return 1;
        close(fd);
        total += size;
    }

    if (ito_init(NULL) != ITO_OK) return 1;
    int err = run_pool();
    int bad = 0;
    for (int i = 0; i < FILES && !err; i++) bad += !matches(&files[i]);
    unlink(files[FILES / 2].path); /* the second round meets a missing file */
    int err2 = run_pool();
    ito_finalize();

    for (int i = 0; i < FILES; i++) unlink(files[i].path);
    rmdir(dir);
    if (err || bad) {
        fprintf(stderr, "parallel_hash: %s, %d mismatches\n", err ? strerror(err) : "no error", bad);
        return 1;
    }
    printf("parallel_hash: %d files, %zu bytes, hashes match, a missing file stops the pool: %s\n", FILES, total, strerror(err2));
    return err2 == ENOENT ? 0 : 1;
}
