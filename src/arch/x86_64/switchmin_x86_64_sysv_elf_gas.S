/*
 * itoa_switch_min: the minimal context switch of ito, x86-64, ELF, GNU as.
 *
 *   void itoa_switch_min(void **save ( rdi ), void *load ( rsi ),
 *                        void (*post)(void *) ( rdx ), void *arg ( rcx ));
 *
 * Keeps only rbp and rsp: every other register is the caller's business. It is
 * entered through ITOA_SWITCH_MIN() (inline asm that declares all other registers
 * clobbered, so the compiler spills exactly the values live across it) or from
 * ito_coop_yield, whose callers use clang's preserve_none convention. MXCSR and the
 * x87 control word are not saved: code yielding through it must not change them.
 *
 *  saved context (sp = *save):
 *  ---------------------------------
 *  | offset |  0x00  | 0x08 | 0x10 |
 *  ---------------------------------
 *  | what   | resume |  rbp | ret  |
 *  ---------------------------------
 *  sp is 8 mod 16.
 */
        .file   "switchmin_x86_64_sysv_elf_gas.S"
        .text
        .globl  itoa_switch_min
        .hidden itoa_switch_min
        .type   itoa_switch_min, @function
        .align  16
itoa_switch_min:
        .cfi_startproc
        endbr64                         /* a valid indirect-branch target under CET IBT   */
        pushq   %rbp                    /* the only register this flavour keeps           */
        leaq    .Lresume_min(%rip), %rax /* how this context is to be resumed             */
        pushq   %rax                    /* ... at the top of the saved context            */
        movq    %rsp, (%rdi)            /* *save = sp                                     */
        movq    %rsi, %rsp              /* switch to the new context's stack              */
        testq   %rdx, %rdx              /* a post action?                                 */
        jnz     .Lpost_min              /* yes: run it first                              */
.Lgo_min:
        popq    %r11                    /* the new context's resume address               */
        jmpq    *%r11                   /* resume it                                      */
.Lpost_min:
        movq    %rcx, %rdi              /* post's argument                                */
        subq    $8, %rsp                /* align to 16 for the call                       */
        callq   *%rdx                   /* post(arg) on the new stack                     */
        addq    $8, %rsp                /* back to the saved sp                           */
        jmp     .Lgo_min                /* and resume                                     */
.Lresume_min:
        endbr64                         /* reached by jmp *%r11                           */
        popq    %rbp                    /* restore the frame pointer                      */
        popq    %r11                    /* the return address ...                         */
        jmpq    *%r11                   /* ... jumped to, not `ret`: a ret here would miss
                                           the return-stack predictor on every switch,
                                           since it was filled by the other context's call */
        .cfi_endproc
        .size   itoa_switch_min, .-itoa_switch_min

        .section .note.GNU-stack, "", %progbits
