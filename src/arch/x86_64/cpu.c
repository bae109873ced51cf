/* cpu.c: x86-64 facts the switch code needs, and fresh contexts.
 *  - the components the full switch saves and the size of their XSAVE area (CPUID leaf
 *    0xD): those enabled in XCR0 that the process may use. Linux enables AMX tile data
 *    in XCR0 but lets a process use it only after ARCH_REQ_XCOMP_PERM; counted anyway
 *    (CPUID(0xD,0).EBX), it made the area 11 KB and a tick's switch ran 16 KiB ULT
 *    stacks into their guard (found by a tester, 2026-12-05);
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

#ifndef ARCH_GET_XCOMP_PERM
#define ARCH_GET_XCOMP_PERM 0x1022
#endif

uint64_t itoa_xsave_size = 512;
uint32_t itoa_have_xsave;
/* The components the full switch saves: XCR0 less what this process may not use (AMX
 * tile state is enabled in XCR0 on AMX CPUs but usable only after ARCH_REQ_XCOMP_PERM). */
uint64_t itoa_xsave_mask = ~(uint64_t)0;
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
        unsigned lo, hi;
        __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
        uint64_t xcr0 = ((uint64_t)hi << 32) | lo, perm = 0;
        /* A kernel without the call (before 5.16) has no AMX to hold back: all of XCR0. */
        if (syscall(SYS_arch_prctl, ARCH_GET_XCOMP_PERM, &perm) == 0 && (xcr0 & ~perm)) {
            itoa_xsave_mask = xcr0 & perm;
            uint64_t size = 576; /* the legacy area and the XSAVE header */
            for (unsigned i = 2; i < 63; i++) {
                if (!(itoa_xsave_mask & (1ull << i))) continue;
                __cpuid_count(0xd, i, a, b, c, d); /* a: its size, b: its offset (standard format) */
                if ((uint64_t)b + a > size) size = (uint64_t)b + a;
            }
            itoa_xsave_size = size;
        }
    } else {
        itoa_have_xsave = 0;
        itoa_xsave_size = 512; /* FXSAVE */
    }
    if (itoa_shadow_stack_enabled()) return ITO_ENOSYS;
    return ITO_OK;
}

