/* coop.c: the flag a timer sets when a slice ends, and the ABI and full-save yields
 * for compiler-inserted yield points (the minimal one is assembly:
 * src/arch/x86_64/coopyield_x86_64_sysv_elf_gas.S; sanitizer trees use the C version
 * below, which goes through the annotated scheduler path). */
#include "ito/coop.h"
#include "itoi.h"

_Thread_local volatile int ito_coop_flag;

void ito_coop_yield_abi(void)
{
    itoi_worker_t *w = itoi_self_worker();
    ito_coop_flag = 0;
    if (!w || !w->cur) return;
    itoi_tick_point(w);
    itoi_yield_worker(w);
}

void ito_coop_yield_full(void)
{
    itoi_worker_t *w = itoi_self_worker();
    ito_coop_flag = 0;
    if (!w || !w->cur) return;
    itoi_tick_point(w);
    itoi_yield_worker_full(w, false);
}

#if defined(ITOI_ASAN) || defined(ITOI_TSAN)
#if defined(__clang__) && __clang_major__ >= 19
__attribute__((preserve_none))
#endif
void ito_coop_yield(void)
{
    ito_coop_yield_abi();
}
#endif
