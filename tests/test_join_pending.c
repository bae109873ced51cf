/* test_join_pending: a join of a child that has not started yet (ito_create, then
 * ito_join at once) may run the child right there, without a context switch
 * (thread.c, run_inline). The child must still be a ULT in every respect:
 *  - it has its own stack of the declared size, not what is left of the joiner's: a
 *    joiner deep in its own stack joins a child that needs most of a default stack
 *    (the bug this guards against: the child once ran on the joiner's stack, and
 *    overflowed it);
 *  - ito_self is the child, and the joiner is back to itself afterwards;
 *  - ito_exit in the child ends the child only, with its value;
 *  - the child may block (on a mutex another ULT holds) and be woken, and may yield;
 *  - many of them in a row (create+join pairs) reuse stacks: nothing grows.
 * The sanitizer trees take the ordinary path (a switch), and must give the same
 * results. */
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "ito/ito.h"
#include "ito_test.h"

#define KIB 1024

static volatile uint64_t sink;

/* Use about `bytes` of stack, in 1 KiB frames. */
__attribute__((noinline)) static uint64_t use_stack(size_t bytes)
{
    volatile char frame[KIB];
    __asm__ volatile("" : : "r"(frame) : "memory");
    frame[0] = (char)bytes;
    frame[KIB - 1] = 1;
    uint64_t r = bytes > KIB ? use_stack(bytes - KIB) : 0;
    sink = r;
    return r + (uint64_t)frame[0] + (uint64_t)frame[KIB - 1];
}

static void *big_child(void *arg)
{
    size_t bytes = (size_t)(uintptr_t)arg;
    use_stack(bytes);
    return (void *)(uintptr_t)(bytes + 1);
}

/* The joiner: ~40 KiB deep in its own default (64 KiB) stack, joins a child that uses
 * ~32 KiB of its own (together more than 64 KiB). */
__attribute__((noinline)) static void deep_then_join(size_t depth)
{
    volatile char frame[KIB];
    __asm__ volatile("" : : "r"(frame) : "memory");
    frame[0] = 1;
    if (depth > 0) {
        deep_then_join(depth - 1);
    } else {
        ito_thread_t t;
        void *r;
        CHECK_OK(ito_create(&t, big_child, (void *)(uintptr_t)(32 * KIB), NULL));
        CHECK_OK(ito_join(t, &r));
        CHECK_EQ((uintptr_t)r, 32 * KIB + 1);
    }
    sink = (uint64_t)frame[0];
}

static void *deep_parent(void *unused)
{
    (void)unused;
    deep_then_join(40);
    return NULL;
}

static ito_thread_t seen_self;
static void *who(void *unused)
{
    (void)unused;
    seen_self = ito_self();
    return NULL;
}

static void *exits(void *arg)
{
    ito_exit((void *)((uintptr_t)arg * 2));
    return NULL; /* not reached */
}

static ito_mutex_t m;
static _Atomic int holder_in, released;
static void *holder(void *unused)
{
    (void)unused;
    CHECK_OK(ito_mutex_lock(&m));
    atomic_store(&holder_in, 1);
    for (int i = 0; i < 200; i++) CHECK_OK(ito_yield()); /* the blocked child waits */
    atomic_store(&released, 1);
    CHECK_OK(ito_mutex_unlock(&m));
    return NULL;
}
static void *blocks(void *unused)
{
    (void)unused;
    CHECK_OK(ito_yield());
    CHECK_OK(ito_mutex_lock(&m)); /* holder has it: this child blocks */
    CHECK_EQ(atomic_load(&released), 1);
    CHECK_OK(ito_mutex_unlock(&m));
    return (void *)7;
}

static void *ret_arg(void *a) { return a; }

int main(void)
{
    CHECK_OK(ito_init(NULL));

    ito_thread_t p;
    ito_attr_t pa; /* attributes: the parent goes the ordinary way, onto a default stack */
    CHECK_OK(ito_attr_init(&pa));
    pa.name = "deep-parent";
    CHECK_OK(ito_create(&p, deep_parent, NULL, &pa));
    CHECK_OK(ito_join(p, NULL));

    ito_thread_t me = ito_self(), t;
    CHECK_OK(ito_create(&t, who, NULL, NULL));
    CHECK_OK(ito_join(t, NULL));
    CHECK(seen_self == t);
    CHECK(ito_self() == me);

    void *r;
    CHECK_OK(ito_create(&t, exits, (void *)21, NULL));
    CHECK_OK(ito_join(t, &r));
    CHECK_EQ((uintptr_t)r, 42);
    CHECK(ito_self() == me);

    CHECK_OK(ito_mutex_init(&m));
    ito_thread_t h;
    CHECK_OK(ito_create(&h, holder, NULL, NULL));
    while (!atomic_load(&holder_in)) CHECK_OK(ito_yield());
    CHECK_OK(ito_create(&t, blocks, NULL, NULL));
    CHECK_OK(ito_join(t, &r));
    CHECK_EQ((uintptr_t)r, 7);
    CHECK_OK(ito_join(h, NULL));
    CHECK(ito_self() == me);

    ito_stats_t s0, s1;
    CHECK_OK(ito_stats(&s0));
    for (int i = 0; i < 100000; i++) {
        CHECK_OK(ito_create(&t, ret_arg, (void *)(intptr_t)i, NULL));
        CHECK_OK(ito_join(t, &r));
        CHECK_EQ((intptr_t)r, i);
    }
    CHECK_OK(ito_stats(&s1));
    CHECK(s1.stacks_mapped <= s0.stacks_mapped + 64); /* stacks are reused, not piled up */
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
