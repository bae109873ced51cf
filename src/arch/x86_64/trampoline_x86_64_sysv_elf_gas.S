/*
 * itoa_trampoline: where a fresh context starts, x86-64, ELF, GNU as.
 *
 * itoa_make() builds this frame at the top of a new stack (sp = the saved context):
 *  ------------------------------------------
 *  | offset |    0x00    |  0x08   |  0x10  |
 *  ------------------------------------------
 *  | what   | trampoline |  entry  |  0     |
 *  ------------------------------------------
 *  The first resume pops 0x00 and jumps here with rsp = sp + 8 (16-byte aligned).
 *  The trampoline clears rbp (the end of the frame chain for debuggers and unwinders)
 *  and calls entry(), which never returns. It does not load MXCSR or the x87 control
 *  word: a new context starts with the FP control state of the context that ran before
 *  it on its worker (the process's, unless a thread changed it), as a new pthread
 *  inherits its creator's. Loading a fixed value here cost every creation an ldmxcsr,
 *  which some CPUs make slow whenever the value differs from the current one (even by a
 *  sticky status flag only); switches still save and restore each context's own.
 */
        .file   "trampoline_x86_64_sysv_elf_gas.S"
        .text
        .globl  itoa_trampoline
        .hidden itoa_trampoline
        .type   itoa_trampoline, @function
        .align  16
itoa_trampoline:
        .cfi_startproc
        .cfi_undefined rip              /* no caller: unwinding stops here                */
        endbr64                         /* reached by jmp *%r11                           */
        xorl    %ebp, %ebp              /* the outermost frame                            */
        movq    (%rsp), %rax            /* entry, left by itoa_make                       */
        callq   *%rax                   /* entry() with rsp 16-byte aligned at the call   */
        ud2                             /* entry never returns                            */
        .cfi_endproc
        .size   itoa_trampoline, .-itoa_trampoline

        .section .note.GNU-stack, "", %progbits
