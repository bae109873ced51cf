/* test_future_first_error: ito_future_set reports the first error of its continuations,
 * which fire oldest first (future.h: "else the first error of a continuation ... the value
 * is set and the other continuations fire"). Three continuations: the first fires an entry
 * already fired (ITO_ESTATE: "fired too often"), the second a good entry, the third the
 * spent entry again: set returns ITO_ESTATE and the good one ran with the value. And with
 * the failing one last, the error still comes back. (Found by mutation testing, h60d: a set
 * that returned the last continuation's result, ITO_OK here, passed every test.) */
#include <stdatomic.h>
#include <stdint.h>

#include "ito/ito.h"
#include "ito_test.h"

static _Atomic uint64_t got;

static void code(ito_frame_t *f, int entry, uint64_t value)
{
    (void)f;
    (void)entry;
    atomic_store(&got, value);
}

int main(void)
{
    CHECK_OK(ito_init(NULL));
    ito_frame_t *fr;
    CHECK_OK(ito_frame_create(&fr, 2, 0));
    CHECK_OK(ito_entry_set(fr, 0, NULL, 1, ITO_MODE_USER)); /* code-less: fired once below */
    CHECK_OK(ito_entry_set(fr, 1, code, 1, ITO_MODE_USER));
    CHECK_OK(ito_continue(fr, 0)); /* spent: a further continuation is ITO_ESTATE */
    CHECK_EQ(ito_continue(fr, 0), ITO_ESTATE);

    ito_future_t f;
    CHECK_OK(ito_future_init(&f));
    CHECK_OK(ito_future_then(&f, fr, 0)); /* oldest: fails */
    CHECK_OK(ito_future_then(&f, fr, 1)); /* fires */
    CHECK_EQ(ito_future_set(&f, 42), ITO_ESTATE);
    uint64_t until = ito_deadline_in(2000000000ull);
    while (atomic_load(&got) != 42 && ito_now_ns() < until) CHECK_OK(ito_yield());
    CHECK_EQ(atomic_load(&got), 42);
    CHECK_OK(ito_future_destroy(&f));

    CHECK_OK(ito_rearm(fr, 1, 1));
    CHECK_OK(ito_future_init(&f));
    CHECK_OK(ito_future_then(&f, fr, 1)); /* oldest: fires */
    CHECK_OK(ito_future_then(&f, fr, 0)); /* newest: fails */
    CHECK_EQ(ito_future_set(&f, 43), ITO_ESTATE);
    until = ito_deadline_in(2000000000ull);
    while (atomic_load(&got) != 43 && ito_now_ns() < until) CHECK_OK(ito_yield());
    CHECK_EQ(atomic_load(&got), 43);
    CHECK_OK(ito_future_destroy(&f));

    CHECK_OK(ito_frame_destroy(fr));
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
