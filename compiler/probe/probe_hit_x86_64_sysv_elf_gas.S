/*
 * ito_probe_hit: one check passed, in a measurement build (ito-cc --ito-probe).
 * x86-64, ELF, GNU as. Entered from the plugin's inline asm
 *     lea -128(%rsp), %rsp ; call ito_probe_hit@PLT ; lea 128(%rsp), %rsp
 * which the compiler believes preserves every register but the flags: so it saves and
 * restores the three it uses. It reads the time-stamp counter and records the cycles since
 * the previous check of this thread in a histogram of 16-cycle buckets (the last bucket
 * collects everything from 65535 x 16 cycles on) and in a running maximum.
 *
 *  saved registers (sp after the pushes):
 *  ----------------------------------------------------------
 *  | offset |  0x00  |  0x08  |  0x10  |  0x18             |
 *  ----------------------------------------------------------
 *  | what   |  rcx   |  rdx   |  rax   | return to the site |
 *  ----------------------------------------------------------
 *  ito_probe_last (thread-local, defined by probe.c in the executable: local-exec),
 *  ito_probe_hist[65536], ito_probe_max and ito_probe_count are probe.c's.
 */
        .file   "probe_hit_x86_64_sysv_elf_gas.S"
        .text
        .globl  ito_probe_hit
        .type   ito_probe_hit, @function
        .align  16
ito_probe_hit:
        .cfi_startproc
        pushq   %rax                    /* the three registers this probe uses           */
        .cfi_adjust_cfa_offset 8
        pushq   %rdx
        .cfi_adjust_cfa_offset 8
        pushq   %rcx
        .cfi_adjust_cfa_offset 8
        rdtsc                           /* edx:eax = time-stamp counter                  */
        shlq    $32, %rdx               /* rdx = high half in place                      */
        orq     %rdx, %rax              /* rax = now                                     */
        movq    %fs:ito_probe_last@tpoff, %rcx /* rcx = this thread's previous check     */
        movq    %rax, %fs:ito_probe_last@tpoff /* now is the previous check from here on */
        testq   %rcx, %rcx              /* the thread's first check: no interval yet     */
        jz      .Lout
        subq    %rcx, %rax              /* rax = cycles since the previous check         */
        incq    ito_probe_count(%rip)   /* intervals recorded                            */
        cmpq    ito_probe_max(%rip), %rax /* a new maximum?                              */
        jbe     .Lbucket
        movq    %rax, ito_probe_max(%rip) /* ... keep it                                 */
.Lbucket:
        shrq    $4, %rax                /* 16-cycle buckets                              */
        movl    $65535, %edx            /* the last bucket ...                           */
        cmpq    %rdx, %rax
        cmovaq  %rdx, %rax              /* ... collects the long tail                    */
        leaq    ito_probe_hist(%rip), %rcx /* the histogram                              */
        incl    (%rcx,%rax,4)           /* one more interval in this bucket              */
.Lout:
        popq    %rcx                    /* restore what we used                          */
        .cfi_adjust_cfa_offset -8
        popq    %rdx
        .cfi_adjust_cfa_offset -8
        popq    %rax
        .cfi_adjust_cfa_offset -8
        ret                             /* back to the site                              */
        .cfi_endproc
        .size   ito_probe_hit, .-ito_probe_hit

        .section .note.GNU-stack, "", %progbits
