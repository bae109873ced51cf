/*
 * ito_coop_yield: the minimal-save yield for compiler-inserted yield points,
 * x86-64, ELF, GNU as. Built only in non-sanitizer trees (sanitizer trees use a C
 * version that goes through the annotated scheduler path).
 *
 * Its callers use clang's preserve_none convention (or ITO_COOP_YIELD_MIN()): they
 * have spilled every value they need, so only rsp and rbp must survive. It saves rbp,
 * asks the scheduler (C, SysV ABI, on this stack) for the next context, and switches:
 *
 *  saved context (sp), then the frame used for the C call below it:
 *  -------------------------------------------
 *  | offset |  0x00  |  0x08  |  0x10        |
 *  -------------------------------------------
 *  | what   | resume |  rbp   | return addr  |
 *  -------------------------------------------
 *  sp is 8 mod 16. itoi_coop_next(sp) records sp in the current ULT, makes it ready
 *  and returns the saved sp of the ULT to run (this one's own sp when none other is
 *  ready, in which case resuming it simply returns).
 */
        .file   "coopyield_x86_64_sysv_elf_gas.S"
        .text
        .globl  ito_coop_yield
        .type   ito_coop_yield, @function
        .align  16
ito_coop_yield:
        .cfi_startproc
        endbr64                         /* a valid indirect-branch target under CET IBT   */
        pushq   %rbp                    /* the only register this yield keeps             */
        leaq    .Lresume_coop(%rip), %rax /* how this context is to be resumed            */
        pushq   %rax                    /* ... at the top of the saved context            */
        movq    %rsp, %rdi              /* argument: our saved sp                         */
        subq    $8, %rsp                /* align to 16 for the call                       */
        callq   itoi_coop_next@PLT      /* rax = sp of the context to resume              */
        movq    %rax, %rsp              /* switch stacks (or stay, if it is ours)         */
        popq    %r11                    /* its resume address                             */
        jmpq    *%r11                   /* resume it                                      */
.Lresume_coop:
        endbr64                         /* reached by jmp *%r11                           */
        popq    %rbp                    /* restore the frame pointer                      */
        popq    %r11                    /* the return address ...                         */
        jmpq    *%r11                   /* ... jumped to, not `ret`: a ret here would miss
                                           the return-stack predictor on every switch,
                                           since it was filled by the other context's call */
        .cfi_endproc
        .size   ito_coop_yield, .-ito_coop_yield

        .section .note.GNU-stack, "", %progbits
