/*
 * fake_runtime.S: stand-ins for the runtime's three yields, for the plugin's execution
 * tests (x86-64, ELF, GNU as). Each counts the call in ito_fake_yields and then destroys
 * exactly the registers its calling convention lets it destroy, so that a caller that
 * keeps a live value in one of them computes a wrong result:
 *   ito_coop_yield       preserve_none: every GPR but rsp and rbp, every xmm register;
 *   ito_coop_yield_abi   SysV: rax rcx rdx rsi rdi r8-r11 and every xmm register;
 *   ito_coop_yield_full  saves everything: destroys nothing.
 * Built with -DFAKE_BROKEN_ABI, ito_coop_yield_abi also destroys the callee-saved rbx and
 * r12-r15, which breaks its contract: the tests use it to show that they detect a lost
 * register.
 */
        .file   "fake_runtime.S"
        .text

        .macro  TRASH_XMM
        pcmpeqd %xmm0, %xmm0
        .irp    n, 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
        movdqa  %xmm0, %xmm\n
        .endr
        .endm

        .globl  ito_coop_yield
        .type   ito_coop_yield, @function
ito_coop_yield:
        addq    $1, ito_fake_yields(%rip)
        movabsq $0x5a5a5a5a5a5a5a5a, %rax
        .irp    r, rbx,rcx,rdx,rsi,rdi,r8,r9,r10,r11,r12,r13,r14,r15
        movq    %rax, %\r
        .endr
        TRASH_XMM
        ret
        .size   ito_coop_yield, .-ito_coop_yield

        .globl  ito_coop_yield_abi
        .type   ito_coop_yield_abi, @function
ito_coop_yield_abi:
        addq    $1, ito_fake_yields(%rip)
        movabsq $0x5a5a5a5a5a5a5a5a, %rax
        .irp    r, rcx,rdx,rsi,rdi,r8,r9,r10,r11
        movq    %rax, %\r
        .endr
#ifdef FAKE_BROKEN_ABI
        .irp    r, rbx,r12,r13,r14,r15
        movq    %rax, %\r
        .endr
#endif
        TRASH_XMM
        ret
        .size   ito_coop_yield_abi, .-ito_coop_yield_abi

        .globl  ito_coop_yield_full
        .type   ito_coop_yield_full, @function
ito_coop_yield_full:
        addq    $1, ito_fake_yields(%rip)
        ret
        .size   ito_coop_yield_full, .-ito_coop_yield_full

        .section .note.GNU-stack, "", %progbits
