/*
 * itoa_call_on: call a function on another stack, x86-64 SysV, ELF, GNU as.
 *
 *   void *itoa_call_on(void *(*fn)(void *) ( rdi ), void *arg ( rsi ),
 *                      void *stack_top ( rdx ));
 *
 * Runs fn(arg) with its frames on the stack that ends at stack_top (16-byte aligned)
 * and returns what fn returns, on the caller's stack again. Nothing is saved but the
 * caller's frame pointer: fn preserves the callee-saved registers, rbp among them, so
 * rbp carries the caller's stack pointer across the call. This is how a join runs a
 * child that never started: on the child's own stack (its declared size, its guard),
 * as a plain call. If fn blocks, its context is saved on the new stack like any ULT's;
 * the caller's frames wait below, their owner being blocked in the join anyway.
 *
 *  the caller's stack, while fn runs (rbp points here):
 *  ----------------------------------
 *  | offset |  0x00      |  0x08     |
 *  ----------------------------------
 *  | what   | caller rbp | ret addr  |
 *  ----------------------------------
 *  the new stack: [stack_top - 8] holds the return address into itoa_call_on.
 */
        .file   "callon_x86_64_sysv_elf_gas.S"
        .text
        .globl  itoa_call_on
        .hidden itoa_call_on
        .type   itoa_call_on, @function
        .align  16
itoa_call_on:
        .cfi_startproc
        endbr64                         /* a valid indirect-branch target under CET IBT   */
        pushq   %rbp                    /* save the caller's frame pointer                */
        .cfi_def_cfa_offset 16          /* unwinders: the CFA is 16 above rsp now         */
        .cfi_offset %rbp, -16           /* ... and the caller's rbp is saved at CFA-16    */
        movq    %rsp, %rbp              /* rbp = our frame on the caller's stack          */
        .cfi_def_cfa_register %rbp      /* unwinders: the CFA follows rbp from here       */
        movq    %rdx, %rsp              /* onto the new stack (aligned: 16 at the call)   */
        movq    %rdi, %rax              /* fn                                             */
        movq    %rsi, %rdi              /* its argument                                   */
        callq   *%rax                   /* fn(arg); rax = its result                      */
        movq    %rbp, %rsp              /* back on the caller's stack                     */
        popq    %rbp                    /* the caller's frame pointer                     */
        .cfi_def_cfa %rsp, 8            /* unwinders: as at entry                         */
        ret                             /* return fn's result in rax                      */
        .cfi_endproc
        .size   itoa_call_on, .-itoa_call_on

        .section .note.GNU-stack, "", %progbits
