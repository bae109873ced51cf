/* test_switch: the three context-switch flavours on raw contexts (no scheduler).
 *
 *  - ABI switch: the callee-saved registers (rbx rbp r12-r15) survive a round trip to
 *    a context that overwrites all of them (probe functions in assembly below);
 *  - MXCSR and the x87 control word belong to each context: two contexts run with
 *    different rounding modes and each keeps its own; a fresh context starts with the
 *    control bits of the context that switched to it (as a new pthread inherits its
 *    creator's: the trampoline loads nothing, see its file); both ways of restoring
 *    (always, lazy) keep the control bits; only the always way restores the status
 *    flags, which the ABI does not preserve (check_fp_flags);
 *  - full switch: every GPR (rdi/rsi/rdx/rcx hold the switch's own arguments) and every
 *    xmm register, with the upper ymm halves where AVX is enabled, survive a round trip
 *    to a context that overwrites them all;
 *  - minimal switch through ITOA_SWITCH_MIN: many live C values survive, and a context
 *    saved by one flavour is resumed by another;
 *  - post actions run on the new stack, after the old context is saved, before the new
 *    one resumes (for each flavour);
 *  - alignment: itoa_make gives sp = 8 mod 16 for any top, a fresh context enters its
 *    function with rsp = 8 mod 16, every flavour saves sp = 8 mod 16, and a ULT's
 *    function is entered with rsp = 8 mod 16.
 * The sanitizer trees get the fiber annotations (the switches here bypass the
 * scheduler, which does this for ULTs). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <sys/mman.h>

#include "arch/x86_64/itoa.h"
#include "ito/ito.h"
#include "ito_test.h"

#if defined(ITOI_ASAN)
#include <sanitizer/common_interface_defs.h>
#endif
#if defined(ITOI_TSAN)
#include <sanitizer/tsan_interface.h>
#endif

/* ---- contexts and sanitizer annotations ---- */
typedef struct ctx {
    void *sp;
    char *stack;
    size_t size;
    void *fake;
    void *fiber;
} ctx_t;

#define STACK (128 * 1024)
static ctx_t mainc, other;

static void san_before(ctx_t *from, ctx_t *to)
{
#if defined(ITOI_ASAN)
    __sanitizer_start_switch_fiber(&from->fake, to->stack, to->size);
#else
    (void)from;
#endif
#if defined(ITOI_TSAN)
    __tsan_switch_to_fiber(to->fiber, 0);
#else
    (void)to;
#endif
}

static void san_after(ctx_t *self)
{
#if defined(ITOI_ASAN)
    __sanitizer_finish_switch_fiber(self->fake, NULL, NULL);
#else
    (void)self;
#endif
}

static void ctx_main_init(void)
{
    pthread_attr_t a;
    void *lo;
    size_t sz;
    CHECK_EQ(pthread_getattr_np(pthread_self(), &a), 0);
    CHECK_EQ(pthread_attr_getstack(&a, &lo, &sz), 0);
    pthread_attr_destroy(&a);
    mainc.stack = lo;
    mainc.size = sz;
#if defined(ITOI_TSAN)
    mainc.fiber = __tsan_get_current_fiber();
#endif
}

/* A fresh context on its own stack that starts in `entry`. */
static void ctx_fresh(ctx_t *c, void (*entry)(void))
{
    if (!c->stack) {
        c->stack = mmap(NULL, STACK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        CHECK(c->stack != MAP_FAILED);
        c->size = STACK;
    }
#if defined(ITOI_TSAN)
    if (c->fiber) __tsan_destroy_fiber(c->fiber);
    c->fiber = __tsan_create_fiber(0);
#endif
    c->fake = NULL;
    c->sp = itoa_make(c->stack + STACK, entry);
    CHECK_EQ((uintptr_t)c->sp % 16, 8);
}

/* Plain C switch with annotations. */
static void sw(void (*flavour)(void **, void *, itoa_post_fn, void *), ctx_t *from, ctx_t *to,
               itoa_post_fn post, void *arg)
{
    san_before(from, to);
    flavour(&from->sp, to->sp, post, arg);
    san_after(from);
}

static int in_stack(const ctx_t *c, const void *p)
{
    return (const char *)p >= c->stack && (const char *)p < c->stack + c->size;
}

/* ---- assembly probes ---- */
uint64_t t_in[16], t_out[16];          /* GPR values in and out */
unsigned char t_vin[16][32], t_vout[16][32]; /* xmm/ymm values in and out */
void *t_arg_save, *t_arg_load;         /* the switch arguments kept across clobbering */
void *t_clobber_flavour;               /* which switch the clobbering side uses */
int t_avx;                             /* 1: move whole ymm registers */
uint64_t t_entry_rsp;                  /* rsp at the entry of a fresh context / ULT fn */

void t_abi_probe(void **save, void *load);   /* rbx rbp r12-r15 := t_in[0..5]; switch; t_out := them */
void t_full_probe(void **save, void *load);  /* every GPR and vector register; see below */
void t_clobber(void **save, void *load);     /* overwrite every register, switch back */
void t_fresh_entry(void);                    /* record rsp, jump to fresh_body */
void *t_ult_fn(void *arg);                   /* record rsp, jump to ult_body */

__asm__(
    ".text\n"
    ".globl t_abi_probe\n"
    ".type t_abi_probe, @function\n"
    "t_abi_probe:\n"
    "  pushq %rbx\n  pushq %rbp\n  pushq %r12\n  pushq %r13\n  pushq %r14\n  pushq %r15\n"
    "  subq $8, %rsp\n"                       /* 16-byte aligned for the call */
    "  movq t_in+0(%rip), %rbx\n"
    "  movq t_in+8(%rip), %rbp\n"
    "  movq t_in+16(%rip), %r12\n"
    "  movq t_in+24(%rip), %r13\n"
    "  movq t_in+32(%rip), %r14\n"
    "  movq t_in+40(%rip), %r15\n"
    "  xorl %edx, %edx\n  xorl %ecx, %ecx\n"
    "  call itoa_switch_abi\n"
    "  movq %rbx, t_out+0(%rip)\n"
    "  movq %rbp, t_out+8(%rip)\n"
    "  movq %r12, t_out+16(%rip)\n"
    "  movq %r13, t_out+24(%rip)\n"
    "  movq %r14, t_out+32(%rip)\n"
    "  movq %r15, t_out+40(%rip)\n"
    "  addq $8, %rsp\n"
    "  popq %r15\n  popq %r14\n  popq %r13\n  popq %r12\n  popq %rbp\n  popq %rbx\n"
    "  ret\n"
    ".size t_abi_probe, .-t_abi_probe\n"

    /* t_full_probe: rax rbx rbp r8-r15 := t_in[0..10], rcx := t_in[11] (the switch's
     * `arg`, unused with post = NULL), xmm0-15 (ymm with AVX) := t_vin; switch with
     * itoa_switch_full; then t_out[0..10] := rax rbx rbp r8-r15, t_out[11..14] := rcx
     * rdx rsi rdi, t_vout := the vector registers. */
    ".globl t_full_probe\n"
    ".type t_full_probe, @function\n"
    "t_full_probe:\n"
    "  pushq %rbx\n  pushq %rbp\n  pushq %r12\n  pushq %r13\n  pushq %r14\n  pushq %r15\n"
    "  subq $8, %rsp\n"
    "  movq %rdi, t_arg_save(%rip)\n"
    "  movq %rsi, t_arg_load(%rip)\n"
    "  cmpl $0, t_avx(%rip)\n"
    "  je 1f\n"
    "  vmovdqu t_vin+0(%rip), %ymm0\n  vmovdqu t_vin+32(%rip), %ymm1\n"
    "  vmovdqu t_vin+64(%rip), %ymm2\n  vmovdqu t_vin+96(%rip), %ymm3\n"
    "  vmovdqu t_vin+128(%rip), %ymm4\n  vmovdqu t_vin+160(%rip), %ymm5\n"
    "  vmovdqu t_vin+192(%rip), %ymm6\n  vmovdqu t_vin+224(%rip), %ymm7\n"
    "  vmovdqu t_vin+256(%rip), %ymm8\n  vmovdqu t_vin+288(%rip), %ymm9\n"
    "  vmovdqu t_vin+320(%rip), %ymm10\n  vmovdqu t_vin+352(%rip), %ymm11\n"
    "  vmovdqu t_vin+384(%rip), %ymm12\n  vmovdqu t_vin+416(%rip), %ymm13\n"
    "  vmovdqu t_vin+448(%rip), %ymm14\n  vmovdqu t_vin+480(%rip), %ymm15\n"
    "  jmp 2f\n"
    "1:\n"
    "  movdqu t_vin+0(%rip), %xmm0\n  movdqu t_vin+32(%rip), %xmm1\n"
    "  movdqu t_vin+64(%rip), %xmm2\n  movdqu t_vin+96(%rip), %xmm3\n"
    "  movdqu t_vin+128(%rip), %xmm4\n  movdqu t_vin+160(%rip), %xmm5\n"
    "  movdqu t_vin+192(%rip), %xmm6\n  movdqu t_vin+224(%rip), %xmm7\n"
    "  movdqu t_vin+256(%rip), %xmm8\n  movdqu t_vin+288(%rip), %xmm9\n"
    "  movdqu t_vin+320(%rip), %xmm10\n  movdqu t_vin+352(%rip), %xmm11\n"
    "  movdqu t_vin+384(%rip), %xmm12\n  movdqu t_vin+416(%rip), %xmm13\n"
    "  movdqu t_vin+448(%rip), %xmm14\n  movdqu t_vin+480(%rip), %xmm15\n"
    "2:\n"
    "  movq t_in+0(%rip), %rax\n"
    "  movq t_in+8(%rip), %rbx\n"
    "  movq t_in+16(%rip), %rbp\n"
    "  movq t_in+24(%rip), %r8\n"
    "  movq t_in+32(%rip), %r9\n"
    "  movq t_in+40(%rip), %r10\n"
    "  movq t_in+48(%rip), %r11\n"
    "  movq t_in+56(%rip), %r12\n"
    "  movq t_in+64(%rip), %r13\n"
    "  movq t_in+72(%rip), %r14\n"
    "  movq t_in+80(%rip), %r15\n"
    "  movq t_in+88(%rip), %rcx\n"
    "  xorl %edx, %edx\n"
    "  movq t_arg_save(%rip), %rdi\n"
    "  movq t_arg_load(%rip), %rsi\n"
    "  call itoa_switch_full\n"
    "  movq %rax, t_out+0(%rip)\n"
    "  movq %rbx, t_out+8(%rip)\n"
    "  movq %rbp, t_out+16(%rip)\n"
    "  movq %r8, t_out+24(%rip)\n"
    "  movq %r9, t_out+32(%rip)\n"
    "  movq %r10, t_out+40(%rip)\n"
    "  movq %r11, t_out+48(%rip)\n"
    "  movq %r12, t_out+56(%rip)\n"
    "  movq %r13, t_out+64(%rip)\n"
    "  movq %r14, t_out+72(%rip)\n"
    "  movq %r15, t_out+80(%rip)\n"
    "  movq %rcx, t_out+88(%rip)\n"
    "  movq %rdx, t_out+96(%rip)\n"
    "  movq %rsi, t_out+104(%rip)\n"
    "  movq %rdi, t_out+112(%rip)\n"
    "  cmpl $0, t_avx(%rip)\n"
    "  je 3f\n"
    "  vmovdqu %ymm0, t_vout+0(%rip)\n  vmovdqu %ymm1, t_vout+32(%rip)\n"
    "  vmovdqu %ymm2, t_vout+64(%rip)\n  vmovdqu %ymm3, t_vout+96(%rip)\n"
    "  vmovdqu %ymm4, t_vout+128(%rip)\n  vmovdqu %ymm5, t_vout+160(%rip)\n"
    "  vmovdqu %ymm6, t_vout+192(%rip)\n  vmovdqu %ymm7, t_vout+224(%rip)\n"
    "  vmovdqu %ymm8, t_vout+256(%rip)\n  vmovdqu %ymm9, t_vout+288(%rip)\n"
    "  vmovdqu %ymm10, t_vout+320(%rip)\n  vmovdqu %ymm11, t_vout+352(%rip)\n"
    "  vmovdqu %ymm12, t_vout+384(%rip)\n  vmovdqu %ymm13, t_vout+416(%rip)\n"
    "  vmovdqu %ymm14, t_vout+448(%rip)\n  vmovdqu %ymm15, t_vout+480(%rip)\n"
    "  vzeroupper\n"
    "  jmp 4f\n"
    "3:\n"
    "  movdqu %xmm0, t_vout+0(%rip)\n  movdqu %xmm1, t_vout+32(%rip)\n"
    "  movdqu %xmm2, t_vout+64(%rip)\n  movdqu %xmm3, t_vout+96(%rip)\n"
    "  movdqu %xmm4, t_vout+128(%rip)\n  movdqu %xmm5, t_vout+160(%rip)\n"
    "  movdqu %xmm6, t_vout+192(%rip)\n  movdqu %xmm7, t_vout+224(%rip)\n"
    "  movdqu %xmm8, t_vout+256(%rip)\n  movdqu %xmm9, t_vout+288(%rip)\n"
    "  movdqu %xmm10, t_vout+320(%rip)\n  movdqu %xmm11, t_vout+352(%rip)\n"
    "  movdqu %xmm12, t_vout+384(%rip)\n  movdqu %xmm13, t_vout+416(%rip)\n"
    "  movdqu %xmm14, t_vout+448(%rip)\n  movdqu %xmm15, t_vout+480(%rip)\n"
    "4:\n"
    "  addq $8, %rsp\n"
    "  popq %r15\n  popq %r14\n  popq %r13\n  popq %r12\n  popq %rbp\n  popq %rbx\n"
    "  ret\n"
    ".size t_full_probe, .-t_full_probe\n"

    /* t_clobber: overwrite every GPR and vector register with junk, then switch
     * (save, load) with the flavour in t_clobber_flavour. */
    ".globl t_clobber\n"
    ".type t_clobber, @function\n"
    "t_clobber:\n"
    "  pushq %rbx\n  pushq %rbp\n  pushq %r12\n  pushq %r13\n  pushq %r14\n  pushq %r15\n"
    "  subq $8, %rsp\n"
    "  movq %rdi, t_arg_save(%rip)\n"
    "  movq %rsi, t_arg_load(%rip)\n"
    "  movabsq $0xdead000000000001, %rax\n"
    "  movq %rax, %rbx\n  incq %rbx\n"
    "  movq %rbx, %rbp\n  incq %rbp\n"
    "  movq %rbp, %r8\n  incq %r8\n"
    "  movq %r8, %r9\n  incq %r9\n"
    "  movq %r9, %r10\n  incq %r10\n"
    "  movq %r10, %r11\n  incq %r11\n"
    "  movq %r11, %r12\n  incq %r12\n"
    "  movq %r12, %r13\n  incq %r13\n"
    "  movq %r13, %r14\n  incq %r14\n"
    "  movq %r14, %r15\n  incq %r15\n"
    "  movq %rax, %xmm0\n  pshufd $0x44, %xmm0, %xmm0\n"
    "  movdqa %xmm0, %xmm1\n  movdqa %xmm0, %xmm2\n  movdqa %xmm0, %xmm3\n"
    "  movdqa %xmm0, %xmm4\n  movdqa %xmm0, %xmm5\n  movdqa %xmm0, %xmm6\n"
    "  movdqa %xmm0, %xmm7\n  movdqa %xmm0, %xmm8\n  movdqa %xmm0, %xmm9\n"
    "  movdqa %xmm0, %xmm10\n  movdqa %xmm0, %xmm11\n  movdqa %xmm0, %xmm12\n"
    "  movdqa %xmm0, %xmm13\n  movdqa %xmm0, %xmm14\n  movdqa %xmm0, %xmm15\n"
    "  cmpl $0, t_avx(%rip)\n"
    "  je 1f\n"
    "  vinsertf128 $1, %xmm0, %ymm0, %ymm0\n  vinsertf128 $1, %xmm1, %ymm1, %ymm1\n"
    "  vinsertf128 $1, %xmm2, %ymm2, %ymm2\n  vinsertf128 $1, %xmm3, %ymm3, %ymm3\n"
    "  vinsertf128 $1, %xmm4, %ymm4, %ymm4\n  vinsertf128 $1, %xmm5, %ymm5, %ymm5\n"
    "  vinsertf128 $1, %xmm6, %ymm6, %ymm6\n  vinsertf128 $1, %xmm7, %ymm7, %ymm7\n"
    "  vinsertf128 $1, %xmm8, %ymm8, %ymm8\n  vinsertf128 $1, %xmm9, %ymm9, %ymm9\n"
    "  vinsertf128 $1, %xmm10, %ymm10, %ymm10\n  vinsertf128 $1, %xmm11, %ymm11, %ymm11\n"
    "  vinsertf128 $1, %xmm12, %ymm12, %ymm12\n  vinsertf128 $1, %xmm13, %ymm13, %ymm13\n"
    "  vinsertf128 $1, %xmm14, %ymm14, %ymm14\n  vinsertf128 $1, %xmm15, %ymm15, %ymm15\n"
    "1:\n"
    "  movq t_arg_save(%rip), %rdi\n"
    "  movq t_arg_load(%rip), %rsi\n"
    "  xorl %edx, %edx\n  xorl %ecx, %ecx\n"
    "  call *t_clobber_flavour(%rip)\n"
    "  addq $8, %rsp\n"
    "  popq %r15\n  popq %r14\n  popq %r13\n  popq %r12\n  popq %rbp\n  popq %rbx\n"
    "  ret\n"
    ".size t_clobber, .-t_clobber\n"

    /* Entered by the trampoline's call: record rsp as it is at a function's entry. */
    ".globl t_fresh_entry\n"
    ".type t_fresh_entry, @function\n"
    "t_fresh_entry:\n"
    "  movq %rsp, t_entry_rsp(%rip)\n"
    "  jmp fresh_body\n"
    ".size t_fresh_entry, .-t_fresh_entry\n"
    ".globl t_ult_fn\n"
    ".type t_ult_fn, @function\n"
    "t_ult_fn:\n"
    "  movq %rsp, t_entry_rsp(%rip)\n"
    "  jmp ult_body\n"
    ".size t_ult_fn, .-t_ult_fn\n");

/* ---- the other context: one body, what it does depends on `mode` ---- */
enum { M_CLOBBER, M_FPMODE, M_FPFLAGS, M_MIN, M_POST };
static int mode;
static uint32_t other_mxcsr0;
static uint16_t other_fpucw0;
static int post_seen_at_entry;
static int fp_errors;

static uint32_t get_mxcsr(void)
{
    uint32_t v;
    __asm__ volatile("stmxcsr %0" : "=m"(v));
    return v;
}
static void set_mxcsr(uint32_t v) { __asm__ volatile("ldmxcsr %0" ::"m"(v) : "memory"); }
static uint16_t get_fpucw(void)
{
    uint16_t v;
    __asm__ volatile("fnstcw %0" : "=m"(v));
    return v;
}
static void set_fpucw(uint16_t v) { __asm__ volatile("fldcw %0" ::"m"(v) : "memory"); }

static int post_count;
static void note_post(void *arg) { (void)arg; post_count++; }

/* Post actions: on the new stack, old context already saved, before the new one runs. */
typedef struct {
    void **saved;       /* where the switch stores the old context */
    const ctx_t *on;    /* the stack post must run on */
    int ok, ran;
} post_check_t;
static post_check_t back; /* the other side's switch back to main */

static void post_probe(void *arg)
{
    post_check_t *p = arg;
    /* The real frame (a local could live on ASan's fake stack). */
    const void *here = __builtin_frame_address(0);
    p->ran++;
    /* and called as the ABI says: the stack 16-byte aligned at the call (the CFA, the
     * stack pointer before the call, is), so that post may keep SSE values on it */
    p->ok = in_stack(p->on, here) && *p->saved != NULL && (uintptr_t)*p->saved % 16 == 8 &&
            (uintptr_t)__builtin_dwarf_cfa() % 16 == 0;
}

void fresh_body(void);
void fresh_body(void)
{
    san_after(&other);
    post_seen_at_entry = post_count;
    other_mxcsr0 = get_mxcsr();
    other_fpucw0 = get_fpucw();
    switch (mode) {
    case M_CLOBBER:
        for (;;) {
            san_before(&other, &mainc);
            t_clobber(&other.sp, mainc.sp);
            san_after(&other);
        }
    case M_FPMODE:
        set_mxcsr(0x7f80); /* round toward zero */
        set_fpucw(0x0f7f); /* round toward zero */
        for (;;) {
            sw(itoa_switch_abi, &other, &mainc, NULL, NULL);
            if ((get_mxcsr() & 0xffc0) != 0x7f80 || get_fpucw() != 0x0f7f) fp_errors++;
        }
    case M_FPFLAGS:
        for (;;) { /* raise the inexact flag, keep main's control bits */
            volatile double one = 1.0, three = 3.0;
            volatile double third = one / three;
            (void)third;
            sw(itoa_switch_abi, &other, &mainc, NULL, NULL);
        }
    case M_MIN:
        for (uint64_t k = 0;; k++) {
            /* Alternate the flavour that saves this context. */
            if (k % 2) {
                sw(itoa_switch_abi, &other, &mainc, note_post, NULL);
            } else {
                san_before(&other, &mainc);
                ITOA_SWITCH_MIN(&other.sp, mainc.sp, note_post, NULL);
                san_after(&other);
            }
        }
    case M_POST:
        for (;;) sw(itoa_switch_abi, &other, &mainc, post_probe, &back);
    }
    abort();
}

/* ---- the checks ---- */
static void check_abi(void)
{
    mode = M_CLOBBER;
    ctx_fresh(&other, t_fresh_entry);
    for (int flav = 0; flav < 2; flav++) {
        t_clobber_flavour = flav ? (void *)itoa_switch_full : (void *)itoa_switch_abi;
        for (int r = 0; r < 200; r++) {
            for (int i = 0; i < 6; i++) t_in[i] = 0x1111111111111111ull * (uint64_t)(i + 1) + (uint64_t)r;
            memset(t_out, 0, sizeof t_out);
            san_before(&mainc, &other);
            t_abi_probe(&mainc.sp, other.sp);
            san_after(&mainc);
            for (int i = 0; i < 6; i++) CHECK(t_out[i] == t_in[i]);
            CHECK_EQ((uintptr_t)mainc.sp % 16, 8);  /* saved by the ABI switch */
            CHECK_EQ((uintptr_t)other.sp % 16, 8);  /* saved by t_clobber's flavour */
        }
    }
    CHECK_EQ(t_entry_rsp % 16, 8); /* the fresh context entered with rsp = 8 mod 16 */
    CHECK_EQ(other_mxcsr0 & 0xffc0, 0x1f80); /* main's control bits (the ABI defaults here) */
    CHECK_EQ(other_fpucw0, 0x037f);
}

static void check_fp_modes(void)
{
    uint32_t m0 = get_mxcsr();
    uint16_t f0 = get_fpucw();
    set_mxcsr(0x3f80); /* round down */
    set_fpucw(0x0b7f); /* round up */
    mode = M_FPMODE;
    fp_errors = 0;
    ctx_fresh(&other, t_fresh_entry);
    int errs = 0;
    for (int r = 0; r < 100; r++) {
        sw(itoa_switch_abi, &mainc, &other, NULL, NULL);
        if ((get_mxcsr() & 0xffc0) != 0x3f80 || get_fpucw() != 0x0b7f) errs++;
    }
    volatile float one = 1.0f, three = 3.0f;
    volatile float down = -one / three;
    set_mxcsr(0x7f80);
    volatile float zero_ish = -one / three;
    set_mxcsr(m0);
    set_fpucw(f0);
    CHECK(down < zero_ish); /* the mode is in effect: -1/3 down < -1/3 toward zero */
    CHECK_EQ(errs, 0);
    CHECK_EQ(fp_errors, 0);
    CHECK_EQ(other_mxcsr0 & 0xffc0, 0x3f80); /* a fresh context inherits the modes it starts under */
    CHECK_EQ(other_fpucw0, 0x0b7f);
}

/* The status flags of MXCSR (sticky exception bits) are not callee-saved in the ABI: the
 * ALWAYS restore brings back the resumed context's own, the LAZY one leaves the flags
 * in effect (here: the inexact flag the other context raised) when the control bits
 * agree. Either way the control bits are the resumed context's. */
static void check_fp_flags(int lazy)
{
    uint32_t m0 = get_mxcsr();
    set_mxcsr(m0 & ~0x3fu); /* main: no flag raised */
    mode = M_FPFLAGS;
    ctx_fresh(&other, t_fresh_entry);
    int leaked = 0;
    for (int r = 0; r < 100; r++) {
        set_mxcsr(get_mxcsr() & ~0x3fu);
        sw(itoa_switch_abi, &mainc, &other, NULL, NULL);
        CHECK_EQ(get_mxcsr() & 0xffc0, m0 & 0xffc0);
        leaked += (get_mxcsr() & 0x20) != 0;
    }
    set_mxcsr(m0);
    CHECK_EQ(leaked, lazy ? 100 : 0);
}

static void check_full(void)
{
    t_avx = __builtin_cpu_supports("avx") ? 1 : 0;
    mode = M_CLOBBER;
    ctx_fresh(&other, t_fresh_entry);
    int vbytes = t_avx ? 32 : 16;
    for (int flav = 0; flav < 2; flav++) {
        t_clobber_flavour = flav ? (void *)itoa_switch_full : (void *)itoa_switch_abi;
        for (int r = 0; r < 200; r++) {
            for (int i = 0; i < 12; i++) t_in[i] = (0x0101010101010101ull * (uint64_t)(i + 3)) ^ ((uint64_t)r << 40);
            for (int v = 0; v < 16; v++)
                for (int b = 0; b < 32; b++) t_vin[v][b] = (unsigned char)(v * 37 + b * 3 + r);
            memset(t_out, 0, sizeof t_out);
            memset(t_vout, 0, sizeof t_vout);
            void *load = other.sp;
            san_before(&mainc, &other);
            t_full_probe(&mainc.sp, load);
            san_after(&mainc);
            for (int i = 0; i < 12; i++) CHECK(t_out[i] == t_in[i]);
            CHECK(t_out[12] == 0);                      /* rdx: post */
            CHECK(t_out[13] == (uint64_t)(uintptr_t)load); /* rsi: load */
            CHECK(t_out[14] == (uint64_t)(uintptr_t)&mainc.sp); /* rdi: save */
            for (int v = 0; v < 16; v++) CHECK(memcmp(t_vout[v], t_vin[v], (size_t)vbytes) == 0);
            CHECK_EQ((uintptr_t)mainc.sp % 16, 8); /* saved by the full switch */
        }
    }
    printf("full switch: 16 GPRs and 16 %s registers preserved\n", t_avx ? "ymm" : "xmm");
}

static void check_min(void)
{
    mode = M_MIN;
    ctx_fresh(&other, t_fresh_entry);
    post_count = 0;
    /* Many values live across the switch: the macro's clobbers make the compiler keep
     * them in memory or in rbp-relative slots, and rbp itself is kept by the switch. */
    volatile uint64_t seed = 12345;
    uint64_t a = seed * 3, b = seed * 5, c = seed * 7, d = seed * 11, e = seed * 13, f = seed * 17;
    uint64_t g = seed * 19, h = seed * 23, i2 = seed * 29, j = seed * 31, k = seed * 37, l = seed * 41;
    double x = (double)seed / 7.0, y = (double)seed / 9.0;
    for (int r = 0; r < 100; r++) {
        san_before(&mainc, &other);
        ITOA_SWITCH_MIN(&mainc.sp, other.sp, r % 3 == 0 ? note_post : NULL, NULL);
        san_after(&mainc);
        a += 1, b += 2, c += 3, d += 4, e += 5, f += 6, g += 7, h += 8, i2 += 9, j += 10, k += 11, l += 12;
        x += 1.0, y += 2.0;
        CHECK_EQ((uintptr_t)mainc.sp % 16, 8);
    }
    uint64_t s = seed;
    CHECK(a == s * 3 + 100 && b == s * 5 + 200 && c == s * 7 + 300 && d == s * 11 + 400);
    CHECK(e == s * 13 + 500 && f == s * 17 + 600 && g == s * 19 + 700 && h == s * 23 + 800);
    CHECK(i2 == s * 29 + 900 && j == s * 31 + 1000 && k == s * 37 + 1100 && l == s * 41 + 1200);
    CHECK(x == (double)s / 7.0 + 100.0 && y == (double)s / 9.0 + 200.0);
    /* The other side posted on every switch back; main on every third. */
    CHECK_EQ(post_count, 100 + 34);
}

static void check_post(void)
{
    for (int flav = 0; flav < 3; flav++) {
        mode = M_POST;
        ctx_fresh(&other, t_fresh_entry);
        mainc.sp = NULL;
        post_check_t p = {&mainc.sp, &other, 0, 0};
        back = (post_check_t){&other.sp, &mainc, 0, 0};
        san_before(&mainc, &other);
        if (flav == 0) itoa_switch_abi(&mainc.sp, other.sp, post_probe, &p);
        else if (flav == 1) itoa_switch_full(&mainc.sp, other.sp, post_probe, &p);
        else ITOA_SWITCH_MIN(&mainc.sp, other.sp, post_probe, &p);
        san_after(&mainc);
        CHECK_EQ(p.ran, 1);  /* on the other stack, with main saved */
        CHECK(p.ok);
        CHECK_EQ(back.ran, 1); /* and on main's stack on the way back */
        CHECK(back.ok);
    }
    /* Post runs before the new context's code: a fresh context sees its count. */
    mode = M_POST;
    ctx_fresh(&other, t_fresh_entry);
    post_count = 0;
    sw(itoa_switch_abi, &mainc, &other, note_post, NULL);
    CHECK_EQ(post_seen_at_entry, 1);
}

static void check_make_alignment(void)
{
    static char buf[256];
    for (int off = 0; off < 32; off++) {
        void *sp = itoa_make(buf + 200 + off, t_fresh_entry);
        CHECK_EQ((uintptr_t)sp % 16, 8);
        CHECK((char *)sp + 24 <= buf + 200 + off); /* below the given top */
        CHECK((char *)sp >= buf + 200 + off - 48);
    }
}

/* A ULT's function is entered with rsp = 8 mod 16, like any C function. */
void *ult_body(void *arg);
void *ult_body(void *arg) { return arg; }

static void check_ult_alignment(void)
{
    CHECK_OK(ito_init(NULL));
    for (int i = 0; i < 8; i++) {
        ito_thread_t t;
        void *r;
        t_entry_rsp = 0;
        ito_attr_t a;
        CHECK_OK(ito_attr_init(&a));
        a.worker = 0;
        a.stack_size = (size_t)(16 + i * 4) * 1024 + (size_t)i * 8; /* odd sizes too */
        CHECK_OK(ito_create(&t, t_ult_fn, (void *)(intptr_t)i, &a));
        CHECK_OK(ito_join(t, &r));
        CHECK_EQ((intptr_t)r, i);
        CHECK(t_entry_rsp != 0);
        CHECK_EQ(t_entry_rsp % 16, 8);
    }
    CHECK_OK(ito_finalize());
}

int main(void)
{
    CHECK_OK(itoa_cpu_init(ITOA_FP_AUTO));
    ctx_main_init();
    check_make_alignment();
    check_abi();
    for (int lazy = 0; lazy <= 1; lazy++) { /* both ways of restoring, whatever this CPU is */
        CHECK_OK(itoa_cpu_init(lazy ? ITOA_FP_LAZY : ITOA_FP_ALWAYS));
        CHECK_EQ(itoa_fp_lazy, (uint32_t)lazy);
        check_fp_modes();
        check_fp_flags(lazy);
    }
    CHECK_OK(itoa_cpu_init(ITOA_FP_AUTO));
    check_full();
    check_min();
    check_post();
    check_ult_alignment();
#if defined(ITOI_TSAN)
    __tsan_destroy_fiber(other.fiber);
#endif
    munmap(other.stack, STACK);
    TEST_DONE();
}
