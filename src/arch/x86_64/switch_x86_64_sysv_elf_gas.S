/*
 * itoa_switch_abi: the SysV ABI context switch of ito, x86-64, ELF, GNU as.
 *
 *   void itoa_switch_abi(void **save  ( rdi ), void *load   ( rsi ),
 *                        void (*post)(void *) ( rdx ), void *arg ( rcx ));
 *   int  itoa_switch_abi_np(void **save ( rdi ), void *load ( rsi ));
 *
 * Saves what the SysV ABI says a callee must preserve, stores the stack pointer into
 * *save, switches to the stack `load`, calls post(arg) there if post != NULL, and
 * resumes the context found there through the resume address at its top. MXCSR and
 * the x87 control word are saved always; a resume loads them always, or (itoa_fp_lazy:
 * Intel, where ldmxcsr of a value that differs even in a sticky status flag costs tens of
 * nanoseconds) only when their control bits differ from what is in effect. The status
 * flags are not callee-saved in the ABI, so a lazy resume leaves them as they are.
 * itoa_switch_abi_np is the same without a post action (no test for one), and returns 0
 * when resumed (every context this flavour saved resumes with eax = 0), so that a C
 * caller can end in `return itoa_switch_abi_np(...)`: a tail call, whose caller's own
 * frame is then never built.
 *
 *  saved context, growing down from the caller's return address (sp = *save):
 *  ----------------------------------------------------------------------------------
 *  | offset |  0x00  |  0x08  |  0x0c  |  0x10 |  0x18 |  0x20 |  0x28 | 0x30 | 0x38 |
 *  ----------------------------------------------------------------------------------
 *  | what   | resume | MXCSR  | x87 CW |  r15  |  r14  |  r13  |  r12  |  rbx | rbp  |
 *  ----------------------------------------------------------------------------------
 *  ----------
 *  |  0x40  |
 *  ----------
 *  | return |   <- the caller's return address (pushed by `call`)
 *  ----------
 *  resume = .Lresume_abi, the tail below that undoes exactly this layout.
 *  sp is 8 mod 16 (entry rsp is 8 mod 16; 6 pushes, 8 bytes of control words, 1 push).
 *
 * The return jump and the branch history. A resume ends in `jmp *%r11` to the resumed
 * context's return address: one jump instruction for every ULT's every call site. On AMD
 * Zen (EPYC, 2026-11) its target behaves as if predicted from the history of conditional
 * branches only (the different `call`s that led here do not help). Where the code that
 * leads to a switch is the same whichever context is resumed (the scheduler's yield and
 * exit paths), two ULTs that yield from two different places (a ping-pong, a round robin,
 * main and one ULT) mispredicted the jump on every switch: 14-19 ns per yield against
 * 8.5-12 when both yield from one site, the same code in both programs. The scheduler
 * therefore runs itoa_hint_resume (itoa.h) just before it switches: three conditional
 * branches on bits 3-5 of the target, which write the target's identity into that
 * history (round robin of 4 and 8 ULTs from distinct sites: 13.2 -> 9.0 ns per yield).
 * They were first placed here, before the jump itself, for every resume; there every
 * switch paid them, including the raw ping-pong between two call sites whose histories
 * differ anyway (ratio to Boost.Context's jump_fcontext in bench_switch_pair, 20
 * interleaved runs, min / median / max: 1.05 / 1.08 / 1.15 with them here, 0.82 / 0.98 /
 * 1.02 without) and the blocking ping-pongs of bench_sync (sem 32.4 -> 30.0 ns at the
 * minimum, future 43.5 -> 39.4, 20 runs, without them here); yield and yield_sites are
 * the same either way (fast-phase means within 0.15 ns, 30-50 runs; 2026-11-27).
 * Not yet measured on an Intel host, whose indirect predictor also follows taken-branch
 * paths: there the branches should cost a cycle or two.
 */
        .file   "switch_x86_64_sysv_elf_gas.S"
        .text
        .globl  itoa_switch_abi_np
        .hidden itoa_switch_abi_np
        .type   itoa_switch_abi_np, @function
        .align  16
itoa_switch_abi_np:
        .cfi_startproc
        endbr64                         /* a valid indirect-branch target under CET IBT   */
        pushq   %rbp                    /* callee-saved: frame pointer                    */
        pushq   %rbx                    /* callee-saved                                   */
        pushq   %r12                    /* callee-saved                                   */
        pushq   %r13                    /* callee-saved                                   */
        pushq   %r14                    /* callee-saved                                   */
        pushq   %r15                    /* callee-saved                                   */
        subq    $8, %rsp                /* room for MXCSR (4 bytes) and x87 CW (2 bytes)  */
        stmxcsr (%rsp)                  /* SSE control/status: rounding, exception masks  */
        fnstcw  4(%rsp)                 /* x87 control word: precision, rounding          */
        leaq    .Lresume_abi(%rip), %rax /* how this context is to be resumed             */
        pushq   %rax                    /* ... at the top of the saved context            */
        movq    %rsp, (%rdi)            /* *save = sp: the old context is complete        */
        movq    %rsi, %rsp              /* switch to the new context's stack              */
        popq    %r11                    /* the new context's resume address               */
        cmpq    %rax, %r11              /* saved by this flavour too (the common case)?   */
        je      .Lresume_abi_same       /* yes: a direct branch, no indirect jump         */
        jmpq    *%r11                   /* resume it (whatever flavour saved it)          */
        .cfi_endproc
        .size   itoa_switch_abi_np, .-itoa_switch_abi_np

        .globl  itoa_switch_abi
        .hidden itoa_switch_abi
        .type   itoa_switch_abi, @function
        .align  16
itoa_switch_abi:
        .cfi_startproc
        endbr64                         /* a valid indirect-branch target under CET IBT   */
        pushq   %rbp                    /* callee-saved: frame pointer                    */
        pushq   %rbx                    /* callee-saved                                   */
        pushq   %r12                    /* callee-saved                                   */
        pushq   %r13                    /* callee-saved                                   */
        pushq   %r14                    /* callee-saved                                   */
        pushq   %r15                    /* callee-saved                                   */
        subq    $8, %rsp                /* room for MXCSR (4 bytes) and x87 CW (2 bytes)  */
        stmxcsr (%rsp)                  /* SSE control/status: rounding, exception masks  */
        fnstcw  4(%rsp)                 /* x87 control word: precision, rounding          */
        leaq    .Lresume_abi(%rip), %rax /* how this context is to be resumed             */
        pushq   %rax                    /* ... at the top of the saved context            */
        movq    %rsp, (%rdi)            /* *save = sp: the old context is complete        */
        movq    %rsi, %rsp              /* switch to the new context's stack              */
        testq   %rdx, %rdx              /* is there a post action?                        */
        jnz     .Lpost_abi              /* yes: run it on the new stack first             */
.Lgo_abi:
        popq    %r11                    /* the new context's resume address               */
        jmpq    *%r11                   /* resume it (whatever flavour saved it)          */
.Lpost_abi:
        movq    %rcx, %rdi              /* post's argument                                */
        subq    $8, %rsp                /* sp was 8 mod 16: align to 16 for the call      */
        callq   *%rdx                   /* post(arg), below the new context's saved data  */
        addq    $8, %rsp                /* back to the saved sp                           */
        jmp     .Lgo_abi                /* and resume                                     */
.Lresume_abi:
        endbr64                         /* reached by jmp *%r11                           */
.Lresume_abi_same:
        movq    0x38(%rsp), %r11        /* the return address, early: the jump below is
                                           resolved while the rest loads                  */
        testb   $1, itoa_fp_lazy(%rip)  /* restore the FP control words lazily?           */
        jnz     .Llazy_abi              /* yes (Intel, or ITO_FP_RESTORE=lazy)            */
        ldmxcsr (%rsp)                  /* restore the SSE control/status word            */
        fldcw   4(%rsp)                 /* restore the x87 control word                   */
.Lregs_abi:
        movq    0x08(%rsp), %r15        /* restore callee-saved registers ...             */
        movq    0x10(%rsp), %r14
        movq    0x18(%rsp), %r13
        movq    0x20(%rsp), %r12
        movq    0x28(%rsp), %rbx
        movq    0x30(%rsp), %rbp        /* ... last the frame pointer                     */
        leaq    0x40(%rsp), %rsp        /* drop the saved context and the return address  */
        xorl    %eax, %eax              /* itoa_switch_abi_np returns 0                   */
        jmpq    *%r11                   /* return: jumped to, not `ret`: a ret here would
                                           miss the return-stack predictor on every switch,
                                           since it was filled by the other context's call */
.Llazy_abi:                             /* -8(%rsp) is scratch: the red zone, which signal
                                           delivery skips                                 */
        stmxcsr -8(%rsp)                /* the MXCSR in effect now                        */
        movl    -8(%rsp), %eax          /* ... in eax                                     */
        xorl    (%rsp), %eax            /* which bits differ from the saved one           */
        testl   $0xffc0, %eax           /* any control bit (masks, rounding, FTZ, DAZ)?   */
        jz      1f                      /* no: status flags alone are not restored        */
        ldmxcsr (%rsp)                  /* yes: load the saved MXCSR                      */
1:      fnstcw  -8(%rsp)                /* the x87 control word in effect now             */
        movzwl  -8(%rsp), %eax          /* ... in eax                                     */
        cmpw    4(%rsp), %ax            /* the same as the saved one?                     */
        je      .Lregs_abi              /* yes: nothing to load                           */
        fldcw   4(%rsp)                 /* no: load the saved x87 control word            */
        jmp     .Lregs_abi              /* and restore the registers                      */
        .cfi_endproc
        .size   itoa_switch_abi, .-itoa_switch_abi

        .section .note.GNU-stack, "", %progbits
