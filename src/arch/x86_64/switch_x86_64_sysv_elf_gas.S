/*
 * itoa_switch_abi: the SysV ABI context switch of ito, x86-64, ELF, GNU as.
 *
 *   void itoa_switch_abi(void **save  ( rdi ), void *load   ( rsi ),
 *                        void (*post)(void *) ( rdx ), void *arg ( rcx ));
 *   int  itoa_switch_abi_np(void **save ( rdi ), void *load ( rsi ));
 *
 * Saves what the SysV ABI says a callee must preserve, stores the stack pointer into
 * *save, switches to the stack `load`, calls post(arg) there if post != NULL, and
 * resumes the context found there through the resume address at its top.
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
        ldmxcsr (%rsp)                  /* restore the SSE control/status word            */
        fldcw   4(%rsp)                 /* restore the x87 control word                   */
        addq    $8, %rsp                /* drop the control-word slot                     */
        popq    %r15                    /* restore callee-saved registers ...             */
        popq    %r14
        popq    %r13
        popq    %r12
        popq    %rbx
        popq    %rbp                    /* ... last the frame pointer                     */
        xorl    %eax, %eax              /* itoa_switch_abi_np returns 0                   */
        popq    %r11                    /* the return address ...                         */
        jmpq    *%r11                   /* ... jumped to, not `ret`: a ret here would miss
                                           the return-stack predictor on every switch,
                                           since it was filled by the other context's call */
        .cfi_endproc
        .size   itoa_switch_abi, .-itoa_switch_abi

        .section .note.GNU-stack, "", %progbits
