/* test_notult_codes: the calls for ULTs (or for code on a worker) refuse the other
 * contexts with ITO_ENOTULT and write nothing, as their headers say, where no other test
 * drove the code: ito_psafe_begin/ito_psafe_end (preempt.h: "ITO_ENOTULT outside a ULT"),
 * ito_create_many (spawn.h: neither array written for ITO_ENOTULT), ito_sys_wait_all
 * (ULT only), ito_sys_post, ito_wsc_flush and ito_wsc_backend (a ULT or a ZWT: a foreign
 * thread gets ITO_ENOTULT), ito_key_get (ITO_ENOTULT with *value NULL). Each from a
 * foreign thread and from a ZWT (h60b's API table, 2026-12-05: these rows were MISSING). */
#include <stdint.h>

#include "ito/ito.h"
#include "ito_test.h"

#define MARK ((ito_thread_t)(uintptr_t)0x77)

static void *nop(void *arg) { return arg; }

static ito_key_t key;

/* The calls refused in both contexts; zwt: the caller is a ZWT (ito_sys_post,
 * ito_wsc_flush and ito_wsc_backend work there). */
static void refused_here(int zwt)
{
    ito_thread_t out[2] = {MARK, MARK};
    int errs[2] = {77, 77};
    CHECK_EQ(ito_create_many(2, nop, NULL, 0, NULL, out, errs, NULL), ITO_ENOTULT);
    CHECK(out[0] == MARK && out[1] == MARK);
    CHECK(errs[0] == 77 && errs[1] == 77);
    ito_sysreq_t q = {.op = ITO_SYS_NOP};
    CHECK_EQ(ito_sys_wait_all(&q, 1), ITO_ENOTULT);
    CHECK_EQ(ito_psafe_begin(), ITO_ENOTULT);
    CHECK_EQ(ito_psafe_end(), ITO_ENOTULT);
    void *v = (void *)1;
    CHECK_EQ(ito_key_get(key, &v), ITO_ENOTULT);
    CHECK(v == NULL);
    if (zwt) {
        CHECK_OK(ito_wsc_flush());
        int b = ito_wsc_backend();
        CHECK(b == ITO_WSC_URING || b == ITO_WSC_SYNC);
    } else {
        CHECK_EQ(ito_sys_post(&q), ITO_ENOTULT);
        CHECK_EQ(ito_wsc_flush(), ITO_ENOTULT);
        CHECK_EQ(ito_wsc_backend(), ITO_ENOTULT);
    }
}

int main(void)
{
    CHECK_OK(ito_init(&(ito_config_t){.workers = 2}));
    CHECK_OK(ito_key_create(&key, NULL));
    CHECK_OK(ito_key_set(key, (void *)2)); /* main's own value is not what the others see */
    ito_test_in_other_contexts(refused_here);
    /* and the same calls from a ULT work */
    CHECK_OK(ito_psafe_begin());
    CHECK_OK(ito_psafe_end());
    CHECK_EQ(ito_psafe_end(), ITO_ESTATE);
    ito_sysreq_t q = {.op = ITO_SYS_NOP};
    CHECK_OK(ito_sys_wait_all(&q, 1));
    CHECK_OK(ito_key_delete(key));
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
