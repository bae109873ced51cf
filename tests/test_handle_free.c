/* test_handle_free: a thread handle guessed for a descriptor that is free (not handed
 * out: fresh in a new slab, freed by a join, or retired by ito_finalize and kept for the
 * next runtime) is refused by every call that takes a thread handle, with ITO_EJOINED.
 *
 * Regression test: a free descriptor's tag already names its next life (it is set when
 * the descriptor is freed, so that creation writes none), and fresh and retired
 * descriptors had the state word of cleared memory, ITOI_LIVE. A join through such a
 * handle (fuzz_api makes them: a live handle with other generation bits) registered as the
 * joiner of a free descriptor and was never woken once the descriptor went to a new thread:
 * the main ULT blocked for ever in ito_join, both workers asleep. Here that join is timed:
 * ITO_ETIMEDOUT instead of ITO_EJOINED is the failure; ito_detach returned ITO_OK and
 * ito_thread_id a free descriptor's id.
 *
 * Each guess is confirmed afterwards: the next thread created gets exactly the guessed
 * handle, so the refusals are those of a real descriptor's next life, not of a handle
 * that names nothing. */
#include <stdint.h>

#include "ito/ito.h"
#include "ito_test.h"

#define ADDR(h) ((uintptr_t)(h) & (((uintptr_t)1 << 48) - 1))
#define GEN(h) ((uintptr_t)(h) >> 48)

static void *noop(void *a) { return a; }

static ito_thread_t with_gen(uintptr_t addr, uintptr_t gen) { return (ito_thread_t)(addr | (gen << 48)); }
static uintptr_t next_gen(uintptr_t g) { return ((g + 1) & 0xffff) ? (g + 1) & 0xffff : 1; }

static void refused(ito_thread_t h)
{
    uint64_t id;
    char name[32];
    CHECK_EQ(ito_join_until(h, NULL, ito_deadline_in(200u * 1000 * 1000)), ITO_EJOINED);
    CHECK_EQ(ito_detach(h), ITO_EJOINED);
    CHECK_EQ(ito_thread_id(h, &id), ITO_EJOINED);
    CHECK_EQ(ito_thread_name(h, name, sizeof name), ITO_EJOINED);
    CHECK_EQ(ito_yield_to(h), ITO_EJOINED);
    ito_group_t *g;
    CHECK_OK(ito_group_create(&g));
    CHECK_EQ(ito_group_add(g, h), ITO_EJOINED);
    CHECK_OK(ito_group_destroy(g));
}

/* Create threads until one gets the descriptor at addr; its handle must be `expect`. */
static void confirm(uintptr_t addr, ito_thread_t expect)
{
    ito_thread_t t[64];
    int n = 0, found = 0;
    while (n < 64 && !found) {
        CHECK_OK(ito_create(&t[n], noop, NULL, NULL));
        if (ADDR(t[n]) == addr) {
            CHECK(t[n] == expect);
            found = 1;
        }
        n++;
    }
    CHECK(found);
    for (int i = 0; i < n; i++) CHECK_OK(ito_join(t[i], NULL));
}

int main(void)
{
    ito_config_t cfg = {.workers = 1}; /* one pool of descriptors: the order is known */
    CHECK_OK(ito_init(&cfg));

    /* 1. fresh descriptors of a new slab: handed out in address order */
    ito_thread_t a, b;
    CHECK_OK(ito_create(&a, noop, NULL, NULL));
    CHECK_OK(ito_create(&b, noop, NULL, NULL));
    uintptr_t d = ADDR(b) - ADDR(a);
    CHECK(ADDR(b) > ADDR(a) && d < 4096);
    uintptr_t fresh = ADDR(b) + d;
    ito_thread_t guess = with_gen(fresh, GEN(b)); /* a fresh slab's generation */
    refused(guess);
    CHECK_OK(ito_join(a, NULL));
    CHECK_OK(ito_join(b, NULL));
    /* b's descriptor was freed last: it is handed out first, then a's, then `fresh` */
    ito_thread_t c[3];
    for (int i = 0; i < 3; i++) CHECK_OK(ito_create(&c[i], noop, NULL, NULL));
    CHECK(c[0] == with_gen(ADDR(b), next_gen(GEN(b))));
    CHECK(c[2] == guess);
    for (int i = 0; i < 3; i++) CHECK_OK(ito_join(c[i], NULL));

    /* 2. freed by a join: the next life of c[2]'s descriptor */
    guess = with_gen(ADDR(c[2]), next_gen(GEN(c[2])));
    refused(guess);
    confirm(ADDR(c[2]), guess);

    /* 3. retired by ito_finalize, handed out again by the next runtime */
    ito_thread_t last;
    CHECK_OK(ito_create(&last, noop, NULL, NULL));
    CHECK_OK(ito_join(last, NULL)); /* freed: generation + 1 */
    CHECK_OK(ito_finalize());
    CHECK_OK(ito_init(&cfg));       /* retired: generation + 2 */
    guess = with_gen(ADDR(last), next_gen(next_gen(GEN(last))));
    refused(guess);
    refused(with_gen(ADDR(last), next_gen(GEN(last)))); /* the life before: stale */
    confirm(ADDR(last), guess);
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
