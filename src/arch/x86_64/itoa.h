/* itoa.h: the x86-64 SysV primitives of ito (the `itoa_` prefix: per-architecture code).
 *
 * A suspended context is one word: its saved stack pointer `sp`. At [sp] lies the
 * address of the code that resumes it (each switch flavour pushes the address of its
 * own restore tail), so any flavour can resume a context saved by any other:
 *     resume(sp):  rsp = sp; pop r11; jmp *r11
 * Every saved sp is 8 mod 16, like rsp at a function's entry.
 *
 * All three switches take (save, load, post, arg): store the current context's sp into
 * *save, load `load`, and, if post != NULL, call post(arg) on the new stack before
 * resuming it. `post` runs after the old context is completely saved: it is where the
 * old thread may be published to other workers (the "ontop" call of Boost.Context). */
#ifndef ITO_ARCH_X86_64_ITOA_H
#define ITO_ARCH_X86_64_ITOA_H

#include <stddef.h>
#include <stdint.h>

typedef void (*itoa_post_fn)(void *arg);

/* (a) SysV ABI switch: rbx rbp r12-r15, MXCSR and the x87 control word. */
void itoa_switch_abi(void **save, void *load, itoa_post_fn post, void *arg);
/* The same without a post action; returns 0 when resumed (for tail calls). */
int itoa_switch_abi_np(void **save, void *load);
/* (b) minimal switch: keeps only rbp (and rsp). Must be called through
 * ITOA_SWITCH_MIN(), which declares every other register clobbered. */
void itoa_switch_min(void **save, void *load, itoa_post_fn post, void *arg);
/* (c) full switch: every GPR, rflags and the XSAVE state (FXSAVE where XSAVE is absent). */
void itoa_switch_full(void **save, void *load, itoa_post_fn post, void *arg);

/* Tell the branch predictor which context is about to be resumed: three conditional
 * branches on bits 3-5 of the return address saved in the ABI context at sp (at
 * sp + 0x40, see the switch's file), taken just before the switch whose return jump
 * (`jmp *%r11`) goes there. For the scheduler's paths, where every ULT's switch runs the
 * same code, so the branch history before that jump is the same whichever ULT is resumed
 * (see the note in switch_x86_64_sysv_elf_gas.S). For a context saved by another flavour
 * (or a fresh one) the word read is not a return address: the hint is then only wrong,
 * never harmful. The word must be readable: only for ULT contexts, whose stacks keep a
 * header of at least 64 bytes above a fresh context's three words (itoa_make), not for
 * a fresh context made at the very top of a mapping. */
static inline __attribute__((always_inline)) void itoa_hint_resume(const void *load)
{
    uintptr_t ra = ((const uintptr_t *)load)[8];
    __asm__ volatile("testb $0x08, %b0\n\t"
                     "jz 1f\n"
                     "1:\n\t"
                     "testb $0x10, %b0\n\t"
                     "jz 2f\n"
                     "2:\n\t"
                     "testb $0x20, %b0\n\t"
                     "jz 3f\n"
                     "3:"
                     :
                     : "q"(ra)
                     : "cc");
}

/* (d) resume `load` without saving anything (the current context is ending). */
__attribute__((noreturn)) void itoa_resume(void *load);
/* Call fn(arg) on the stack ending at stack_top (callon_x86_64_sysv_elf_gas.S). */
void *itoa_call_on(void *(*fn)(void *), void *arg, void *stack_top);

/* Entry of a fresh context: calls entry() with a 16-byte aligned stack, never returns. */
void itoa_trampoline(void);

/* Build a fresh context at the top of a stack; resuming it calls entry() (noreturn).
 * The frame (see the trampoline's file): [itoa_trampoline][entry][0], sp 8 mod 16. */
static inline void *itoa_make(void *stack_top, void (*entry)(void))
{
    uintptr_t top = (uintptr_t)stack_top & ~(uintptr_t)15; /* 16-byte aligned */
    uintptr_t *sp = (uintptr_t *)(top - 24);                /* 8 mod 16, three slots */
    sp[0] = (uintptr_t)itoa_trampoline;
    sp[1] = (uintptr_t)entry;
    sp[2] = 0; /* a null return address above the outermost frame */
    return sp;
}

/* CPU facts, filled by itoa_cpu_init(): the XSAVE area size (0: use FXSAVE, 512) and the
 * components the full switch saves and restores (XCR0 less what the process may not use). */
extern uint64_t itoa_xsave_size __attribute__((visibility("hidden")));
extern uint64_t itoa_xsave_mask __attribute__((visibility("hidden")));
extern uint32_t itoa_have_xsave __attribute__((visibility("hidden")));
/* How the ABI switch restores MXCSR and the x87 control word when it resumes a context
 * (switch_x86_64_sysv_elf_gas.S): ALWAYS loads them; LAZY loads one only when its control
 * bits differ from what is in effect (status flags are not callee-saved: they are left
 * as they are); AUTO picks LAZY on Intel, whose ldmxcsr of a different value is slow,
 * and ALWAYS elsewhere (on AMD the load is cheap and the comparison is not). */
enum { ITOA_FP_AUTO = 0, ITOA_FP_ALWAYS = 1, ITOA_FP_LAZY = 2 };
extern uint32_t itoa_fp_lazy __attribute__((visibility("hidden"))); /* 1: LAZY in effect */
int itoa_cpu_init(int fp_restore); /* 0, or ITO_ENOSYS when CET shadow stacks are enabled */
int itoa_shadow_stack_enabled(void);

#define ITOA_SWITCH_MIN(save, load, post, arg)                                          \
    do {                                                                                \
        void **s_ = (save);                                                             \
        void *l_ = (load);                                                              \
        itoa_post_fn p_ = (post);                                                       \
        void *a_ = (arg);                                                               \
        __asm__ volatile("movq %%rsp, %%rax\n\t" /* keep the caller's rsp */               \
                         "subq $128, %%rsp\n\t" /* step over the red zone */              \
                         "andq $-16, %%rsp\n\t" /* align for the call */                  \
                         "pushq %%rax\n\t"                                                \
                         "pushq %%rax\n\t"                                                \
                         "call itoa_switch_min\n\t"                                       \
                         "movq 8(%%rsp), %%rsp"                                          \
                         : "+D"(s_), "+S"(l_), "+d"(p_), "+c"(a_)                        \
                         :                                                              \
                         : "rax", "rbx", "r8", "r9", "r10", "r11", "r12", "r13", "r14",  \
                           "r15", "memory", "cc", "xmm0", "xmm1", "xmm2", "xmm3",        \
                           "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10",      \
                           "xmm11", "xmm12", "xmm13", "xmm14", "xmm15");                \
    } while (0)

#endif
