/* arena.c: the one address range that holds every object whose address the runtime hands
 * out as a handle (ULT descriptors, ZWT frames), so that any handle can be checked, a
 * forged one too, without reading memory the runtime does not own.
 *
 * The arena is reserved once per process (PROT_NONE, no memory committed: 64 GiB of
 * address space, less when RLIMIT_AS is set, halved until the kernel accepts) and carved
 * from the bottom up in chunks of 64 KiB, made readable and writable as they are carved
 * (adjacent ranges merge: the arena stays one or two kernel mappings). It is never given
 * back, not even at ito_finalize: a handle kept across ito_finalize still points into it.
 *
 * Every chunk has a kind byte (itoi_arena_map, a static table of one byte per chunk of the
 * largest arena: 1 MiB of bss that costs memory only where chunks are carved): what it
 * holds. itoi_arena_kind() turns any pointer into (kind, offset in its chunk) with two
 * loads and a compare, or FREE when the pointer is outside what has been carved: the
 * exact test of "a descriptor starts here" (thread.c handle_desc). The hot checks (join,
 * every ZWT call) skip the map: below `used` (so mapped, with a page of slack past it),
 * and the object's `tag` word equal to the handle xor `key`, a secret drawn per process:
 * descriptors and frames keep their current handle keyed there (itoi_ult_set_gen,
 * frame.c), which a header copied elsewhere, a pointer into the middle of an object or a
 * stale generation does not match.
 *
 * Invariants: `used` only grows, under `lock`; a chunk is made writable before its kind
 * and `used` are stored (release), and neither is ever taken back, so a thread that reads
 * a kind other than FREE, or an address below `used` (acquire), may read the chunk. Kinds
 * and `base` are atomics because a forged handle may be checked by a thread while another
 * carves (the answer is then FREE or the new kind, both safe). */
#define _GNU_SOURCE
#include <pthread.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include "itoi.h"

#if defined(ITOI_ASAN)
#include <sanitizer/lsan_interface.h>
#endif

#define RESERVE_MIN ((size_t)1 << 24)   /* 16 MiB */
/* A page past what is carved is mapped too, so a check may read a few bytes at any
 * address below `used` (zwt.h itoi_frame_get reads a frame's tag) without a fault. */
#define SLACK ((size_t)4096)

itoi_arena_t itoi_arena;
_Atomic uint8_t itoi_arena_map[ITOI_ARENA_NCHUNKS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* Reserve the range (under lock, once). */
/* The key: 8 of the kernel's 16 random bytes for this process, made before main and
 * never changed, so that every thread reads one value (a foreign thread checking a handle
 * while the first ito_init reserved the arena read it as reserve() wrote it: a data race
 * TSan reported; found by a tester, 2026-12-04). Odd: a handle (even) keyed is never 0,
 * a dead frame's tag. */
__attribute__((constructor)) static void make_key(void)
{
    if (itoi_arena.key) return;
    int here;
    const void *rnd = (const void *)getauxval(AT_RANDOM);
    uintptr_t key = (uintptr_t)&here * 0x9e3779b97f4a7c15u; /* without AT_RANDOM: the stack's place */
    if (rnd) memcpy(&key, rnd, sizeof key);
    itoi_arena.key = key | 1;
}

/* fork(): the child gets a copy of every lock as it was, and a lock another thread held
 * then stays held there for ever. The process-wide locks of the handle objects (the arena's
 * and the free list's, hobj.c) are taken by the forking thread before the fork and released
 * after it on both sides, as malloc's are, so the child may create and destroy streams and
 * channels (thread.h), with or without a runtime. Registered before main: a process may
 * fork without ever calling ito_init, and start a runtime in the child. (An object's own
 * lock, held by a call under way on it, is not: thread.h says so.) The key table's lock
 * (tls.c) is taken last, the one place all of them are registered. */
static void fork_prepare(void)
{
    pthread_mutex_lock(&lock);
    itoi_hobj_fork_lock();
    itoi_keys_fork_lock();
}
static void fork_after(void)
{
    itoi_keys_fork_unlock();
    itoi_hobj_fork_unlock();
    pthread_mutex_unlock(&lock);
}
__attribute__((constructor)) static void fork_locks(void) { (void)pthread_atfork(fork_prepare, fork_after, fork_after); }

static bool reserve(void)
{
    size_t want = ITOI_ARENA_MAX;
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur / 4 < want)
        want = rl.rlim_cur / 4;  /* leave the rest of a limited address space to stacks */
    for (; want >= RESERVE_MIN; want /= 2) {
        void *p = mmap(NULL, want + SLACK, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p == MAP_FAILED) continue;
        itoi_arena.nchunks = want >> ITOI_ARENA_CHUNK_SHIFT;
        if (!itoi_arena.key) make_key(); /* a user's constructor came before ours */
        atomic_store_explicit(&itoi_arena.base, (uintptr_t)p, memory_order_relaxed);
        return true;
    }
    return false;
}

void *itoi_arena_carve(unsigned kind, size_t bytes)
{
    if (itoi_fault_alloc()) return NULL;   /* counted as an allocation (fault.c) */
    size_t n = (bytes + ITOI_ARENA_CHUNK - 1) >> ITOI_ARENA_CHUNK_SHIFT;
    void *out = NULL;
    pthread_mutex_lock(&lock);
    if (!itoi_arena.nchunks && !reserve()) goto done;
    size_t used = atomic_load_explicit(&itoi_arena.used, memory_order_relaxed);
    size_t first = used >> ITOI_ARENA_CHUNK_SHIFT;
    if (n == 0 || n > itoi_arena.nchunks - first) goto done;
    char *p = (char *)atomic_load_explicit(&itoi_arena.base, memory_order_relaxed) + used;
    size_t len = n << ITOI_ARENA_CHUNK_SHIFT;
    if (mprotect(p, len + SLACK, PROT_READ | PROT_WRITE) != 0) goto done;
#if defined(ITOI_ASAN)
    __lsan_register_root_region(p, len); /* user pointers kept in frames and descriptors */
#endif
    for (size_t i = 1; i < n; i++)
        atomic_store_explicit(&itoi_arena_map[first + i], ITOI_ARENA_CONT, memory_order_release);
    atomic_store_explicit(&itoi_arena_map[first], (uint8_t)kind, memory_order_release);
    atomic_store_explicit(&itoi_arena.used, used + len, memory_order_release);
    out = p;
done:
    pthread_mutex_unlock(&lock);
    return out;
}

size_t itoi_arena_chunks(void)
{
    return atomic_load_explicit(&itoi_arena.used, memory_order_acquire) >> ITOI_ARENA_CHUNK_SHIFT;
}

void *itoi_arena_chunk(size_t i)
{
    return (char *)atomic_load_explicit(&itoi_arena.base, memory_order_relaxed) + (i << ITOI_ARENA_CHUNK_SHIFT);
}

unsigned itoi_arena_chunk_kind(size_t i)
{
    return atomic_load_explicit(&itoi_arena_map[i], memory_order_relaxed);
}
