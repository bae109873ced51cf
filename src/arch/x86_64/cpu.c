/* cpu.c: x86-64 facts the switch code needs, and fresh contexts.
 *  - the size of the XSAVE area for the features enabled in XCR0 (CPUID leaf 0xD);
 *  - whether CET shadow stacks are enabled for this process: ito's switches move rsp
 *    between stacks without switching shadow stacks, so ito refuses to start there;
 *  - how the ABI switch restores the FP control words (itoa_fp_lazy, see itoa.h). */
#define _GNU_SOURCE
#include <cpuid.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ito/error.h"
#include "itoa.h"

uint64_t itoa_xsave_size = 512;
uint32_t itoa_have_xsave;
uint32_t itoa_fp_lazy;

static int cpu_is_intel(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(0, &a, &b, &c, &d)) return 0;
    return b == 0x756e6547 && d == 0x49656e69 && c == 0x6c65746e; /* "Genu" "ineI" "ntel" */
}

#ifndef ARCH_SHSTK_STATUS
#define ARCH_SHSTK_STATUS 0x5005
#endif
#define ARCH_SHSTK_SHSTK (1ULL << 0)

int itoa_shadow_stack_enabled(void)
{
    unsigned long long features = 0;
    if (syscall(SYS_arch_prctl, ARCH_SHSTK_STATUS, &features) != 0) return 0; /* kernel without user CET */
    return (features & ARCH_SHSTK_SHSTK) != 0;
}

int itoa_cpu_init(int fp_restore)
{
    itoa_fp_lazy = fp_restore == ITOA_FP_LAZY || (fp_restore == ITOA_FP_AUTO && cpu_is_intel());
    unsigned a, b, c, d;
    if (__get_cpuid(1, &a, &b, &c, &d) && (c & (1u << 26)) && (c & (1u << 27))) {
        /* XSAVE supported by the CPU and enabled by the OS (OSXSAVE). */
        __cpuid_count(0xd, 0, a, b, c, d);
        itoa_have_xsave = 1;
        itoa_xsave_size = b; /* bytes for the components enabled in XCR0 */
    } else {
        itoa_have_xsave = 0;
        itoa_xsave_size = 512; /* FXSAVE */
    }
    if (itoa_shadow_stack_enabled()) return ITO_ENOSYS;
    return ITO_OK;
}

