/* fault_gate: failure injection is compiled in only where asked (src/core/fault.c).
 * Built twice from this file, fault.c and config.c alone: fault_gate_off without
 * ITOI_FAULT_INJECTION (what Release and RelWithDebInfo builds get), where
 * ITO_FAULT_MMAP=1 / ITO_FAULT_MALLOC=1 must change nothing, and fault_gate_on with it
 * (Debug and test builds), where the first mmap and the first malloc must fail. The
 * second is the control that shows the first can fail. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <sys/mman.h>

#include "core/itoi.h"
#include "ito_test.h"

int main(void)
{
    CHECK_OK(setenv("ITO_FAULT_MMAP", "1", 1));
    CHECK_OK(setenv("ITO_FAULT_MALLOC", "1", 1));
    CHECK_OK(itoi_env_load()); /* what ito_init does */
    itoi_fault_reset();
    void *m = itoi_mmap(4096, PROT_READ | PROT_WRITE);
    void *a = itoi_malloc(64);
#ifdef ITOI_FAULT_INJECTION
    CHECK(m == NULL);
    CHECK(a == NULL);
    /* only the first call fails */
    m = itoi_mmap(4096, PROT_READ | PROT_WRITE);
    a = itoi_malloc(64);
#endif
    CHECK(m != NULL);
    CHECK(a != NULL);
    void *c = itoi_calloc(4, 16);
    CHECK(c != NULL);
    CHECK_OK(itoi_munmap(m, 4096));
    free(a);
    free(c);
    TEST_DONE();
}
