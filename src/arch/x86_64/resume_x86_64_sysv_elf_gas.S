/*
 * itoa_resume: resume a saved context without saving the current one, x86-64, ELF,
 * GNU as.
 *
 *   _Noreturn void itoa_resume(void *load ( rdi ));
 *
 * For a context that ends (an exiting ULT): nothing of it needs saving, so this is the
 * second half of a switch alone. The caller must not need its own stack afterwards (the
 * exit path has already given it back to its pool: only the three instructions below run
 * on it, and they push nothing).
 *
 *  the context resumed (sp = load), as every switch flavour leaves it:
 *  -----------------------------------------------
 *  | offset |  0x00  |  0x08 ...                  |
 *  -----------------------------------------------
 *  | what   | resume | what that flavour saved    |
 *  -----------------------------------------------
 */
        .file   "resume_x86_64_sysv_elf_gas.S"
        .text
        .globl  itoa_resume
        .hidden itoa_resume
        .type   itoa_resume, @function
        .align  16
itoa_resume:
        .cfi_startproc
        endbr64                         /* a valid indirect-branch target under CET IBT   */
        movq    %rdi, %rsp              /* the new context's stack                        */
        popq    %r11                    /* its resume address                             */
        jmpq    *%r11                   /* resume it (whatever flavour saved it)          */
        .cfi_endproc
        .size   itoa_resume, .-itoa_resume

        .section .note.GNU-stack, "", %progbits
