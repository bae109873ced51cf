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
 *  The trampoline installs the ABI's default MXCSR and x87 control word, clears rbp
 *  (the end of the frame chain for debuggers and unwinders) and calls entry(), which
 *  never returns.
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
        ldmxcsr .Lmxcsr_default(%rip)   /* MXCSR: all exceptions masked, round to nearest */
        fldcw   .Lfpucw_default(%rip)   /* x87 CW: double extended, round to nearest      */
        xorl    %ebp, %ebp              /* the outermost frame                            */
        movq    (%rsp), %rax            /* entry, left by itoa_make                       */
        callq   *%rax                   /* entry() with rsp 16-byte aligned at the call   */
        ud2                             /* entry never returns                            */
        .cfi_endproc
        .size   itoa_trampoline, .-itoa_trampoline

        .section .rodata
        .align  4
.Lmxcsr_default:
        .long   0x1f80                  /* the SysV ABI's initial MXCSR                   */
.Lfpucw_default:
        .word   0x037f                  /* the SysV ABI's initial x87 control word        */

        .section .note.GNU-stack, "", %progbits
