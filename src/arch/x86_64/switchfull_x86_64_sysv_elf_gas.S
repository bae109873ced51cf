/*
 * itoa_switch_full: the full context switch of ito, x86-64, ELF, GNU as: what a
 * preemptive switch pays. Saves every general-purpose register, rflags and the whole
 * extended state the process may use (x87, SSE, AVX, AVX-512, ...: the components of
 * itoa_xsave_mask, XCR0 less what the kernel has not permitted the process, such as AMX
 * tile data) with XSAVE, or with FXSAVE (x87 + SSE) on CPUs without XSAVE.
 *
 *   void itoa_switch_full(void **save ( rdi ), void *load ( rsi ),
 *                         void (*post)(void *) ( rdx ), void *arg ( rcx ));
 *
 *  saved context (sp = *save), lowest address first:
 *  ---------------------------------------------------------------------------------
 *  | 0x00   | 0x08     | 0x10 | 0x18 .. (64-aligned)       | gap  | 16 GPRs | ret  |
 *  ---------------------------------------------------------------------------------
 *  | resume | old rsp  | pad  | XSAVE/FXSAVE area          |      | r15..   |      |
 *  |        | (-> r15) |      | itoa_xsave_size bytes      |      | ..rflags|      |
 *  ---------------------------------------------------------------------------------
 *  GPR block, from low to high: r15 r14 r13 r12 r11 r10 r9 r8 rbp rdi rsi rdx rcx rbx
 *  rax rflags, then the caller's return address. The save area starts at sp+0x18 and
 *  is 64-byte aligned; sp is 8 mod 16.
 */
        .file   "switchfull_x86_64_sysv_elf_gas.S"
        .text
        .globl  itoa_switch_full
        .hidden itoa_switch_full
        .type   itoa_switch_full, @function
        .align  16
itoa_switch_full:
        .cfi_startproc
        endbr64                         /* a valid indirect-branch target under CET IBT   */
        pushfq                          /* rflags (direction flag, arithmetic flags)      */
        pushq   %rax                    /* every general-purpose register ...             */
        pushq   %rbx
        pushq   %rcx
        pushq   %rdx
        pushq   %rsi
        pushq   %rdi
        pushq   %rbp
        pushq   %r8
        pushq   %r9
        pushq   %r10
        pushq   %r11
        pushq   %r12
        pushq   %r13
        pushq   %r14
        pushq   %r15                    /* ... 15 of them, rsp is the 16th                */
        movq    %rsp, %rbx              /* rbx = address of the GPR block                 */
        subq    itoa_xsave_size(%rip), %rsp /* room for the extended state                */
        andq    $-64, %rsp              /* XSAVE needs a 64-byte aligned area             */
        movq    %rsp, %r8               /* r8 = the save area                             */
        cmpl    $0, itoa_have_xsave(%rip) /* XSAVE available?                             */
        je      .Lfx_save               /* no: FXSAVE (512 bytes, 16-aligned suffices)    */
        xorl    %eax, %eax              /* zero the XSAVE header (bytes 512..575):        */
        movq    %rax, 512(%r8)          /*   XSTATE_BV                                    */
        movq    %rax, 520(%r8)          /*   XCOMP_BV must be 0 for the standard format   */
        movq    %rax, 528(%r8)          /*   reserved bytes must be 0 for XRSTOR          */
        movq    %rax, 536(%r8)
        movq    %rax, 544(%r8)
        movq    %rax, 552(%r8)
        movq    %rax, 560(%r8)
        movq    %rax, 568(%r8)
        movl    itoa_xsave_mask(%rip), %eax   /* requested-feature bitmap, low half     */
        movl    itoa_xsave_mask+4(%rip), %edx /* ... high half (XCR0 limits it further) */
        xsave64 (%r8)                   /* save the whole extended state                  */
        jmp     .Lsaved
.Lfx_save:
        fxsave64 (%r8)                  /* x87 + SSE state                                */
.Lsaved:
        subq    $8, %rsp                /* pad: keep sp 8 mod 16 after the next 2 pushes  */
        pushq   %rbx                    /* where the GPR block is                         */
        leaq    .Lresume_full(%rip), %rax /* how this context is to be resumed            */
        pushq   %rax                    /* ... at the top of the saved context            */
        movq    72(%rbx), %rdi          /* reload the arguments clobbered above: rdi=save  */
        movq    80(%rbx), %rsi          /*   rsi: load                                    */
        movq    88(%rbx), %rdx          /*   rdx: post                                    */
        movq    96(%rbx), %rcx          /*   rcx: arg                                     */
        movq    %rsp, (%rdi)            /* *save = sp                                     */
        movq    %rsi, %rsp              /* switch to the new context's stack              */
        testq   %rdx, %rdx              /* a post action?                                 */
        jnz     .Lpost_full             /* yes: run it first                              */
.Lgo_full:
        popq    %r11                    /* the new context's resume address               */
        jmpq    *%r11                   /* resume it                                      */
.Lpost_full:
        movq    %rcx, %rdi              /* post's argument                                */
        subq    $8, %rsp                /* align to 16 for the call                       */
        callq   *%rdx                   /* post(arg) on the new stack                     */
        addq    $8, %rsp                /* back to the saved sp                           */
        jmp     .Lgo_full               /* and resume                                     */
.Lresume_full:
        endbr64                         /* reached by jmp *%r11                           */
        movq    (%rsp), %rbx            /* rbx = the GPR block                            */
        leaq    16(%rsp), %r8           /* r8 = the save area                             */
        cmpl    $0, itoa_have_xsave(%rip) /* restore with the instruction that saved      */
        je      .Lfx_restore
        movl    itoa_xsave_mask(%rip), %eax   /* the components saved                  */
        movl    itoa_xsave_mask+4(%rip), %edx
        xrstor64 (%r8)                  /* restore the extended state                     */
        jmp     .Lrestored
.Lfx_restore:
        fxrstor64 (%r8)                 /* x87 + SSE state                                */
.Lrestored:
        movq    %rbx, %rsp              /* back to the GPR block                          */
        popq    %r15                    /* every general-purpose register ...             */
        popq    %r14
        popq    %r13
        popq    %r12
        popq    %r11
        popq    %r10
        popq    %r9
        popq    %r8
        popq    %rbp
        popq    %rdi
        popq    %rsi
        popq    %rdx
        popq    %rcx
        popq    %rbx
        popq    %rax                    /* ... in reverse order                           */
        popfq                           /* rflags                                         */
        ret                             /* return to the caller of the switch             */
        .cfi_endproc
        .size   itoa_switch_full, .-itoa_switch_full

        .section .note.GNU-stack, "", %progbits
