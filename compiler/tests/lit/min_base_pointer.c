// Variant min in a function with a dynamic alloca: the X86 back end addresses the frame of
// such a function through a base pointer, rbx, when it also realigns it (an over-aligned
// local or spill slot, -mstackrealign), and clang 19 does not keep rbx around a
// preserve_none call: after ito_coop_yield, which keeps only rsp and rbp, the function
// reloaded its spills through another ULT's rbx and crashed (found by an outside tester,
// 2026-12-04, at -O0..-O2). Such functions, and those with an inline asm that clobbers
// rsp, call ito_coop_yield_abi, which keeps the callee-saved registers; the others keep
// the preserve_none call.
// RUN: %clang -O2 -Wno-stack-protector -S %s -o - -Xclang -load -Xclang %plugin -fpass-plugin=%plugin \
// RUN:   -mllvm -ito-yield-variant=min | %FileCheck %s
// RUN: %clang -O0 -Wno-stack-protector -S %s -o - -Xclang -load -Xclang %plugin -fpass-plugin=%plugin \
// RUN:   -mllvm -ito-yield-variant=min | %FileCheck %s
// RUN: %clang -O2 -Wno-stack-protector -S %s -o - -Xclang -load -Xclang %plugin -fpass-plugin=%plugin \
// RUN:   -mllvm -ito-yield-variant=min -mllvm -ito-yield-policy=bound | %FileCheck %s
// RUN: %clang -O2 -Wno-stack-protector -S %s -o - -Xclang -load -Xclang %plugin -fpass-plugin=%plugin -mstackrealign \
// RUN:   -mllvm -ito-yield-variant=min | %FileCheck %s
#include <alloca.h>
#include <string.h>

void use(long *p, int n);

// CHECK-LABEL: realigned_vla:
// CHECK: movq %rsp, %rbx
// CHECK-NOT: ito_coop_yield@PLT
// CHECK: callq ito_coop_yield_abi@PLT
// CHECK-NOT: ito_coop_yield@PLT
// CHECK: .cfi_endproc
long realigned_vla(int n, int rounds)
{
    _Alignas(64) long big[8];
    long s = 0;
    for (int r = 0; r < rounds; r++) {
        long v[n];
        memset(big, 0, sizeof big);
        for (int i = 0; i < n; i++) { v[i] = i * r + s; big[i & 7] += v[i]; }
        for (int i = 0; i < n; i++) s += v[n - 1 - i] % 13 + big[i & 7] % 7;
    }
    return s;
}

// CHECK-LABEL: with_alloca:
// CHECK-NOT: ito_coop_yield@PLT
// CHECK: callq ito_coop_yield_abi@PLT
// CHECK: .cfi_endproc
long with_alloca(int n)
{
    long *p = alloca(n * sizeof(long));
    use(p, n);
    long s = 0;
    for (int i = 0; i < n; i++) s += p[i];
    return s;
}

// An inline asm that clobbers the stack pointer, beside an over-aligned local: the same
// base pointer (found with the fix above: crashed, or wrong sums, before).
// CHECK-LABEL: sp_clobber:
// CHECK: movq %rsp, %rbx
// CHECK-NOT: ito_coop_yield@PLT
// CHECK: callq ito_coop_yield_abi@PLT
// CHECK: .cfi_endproc
long sp_clobber(int n)
{
    _Alignas(64) long big[8] = {0};
    long s = 0;
    for (int i = 0; i < n; i++) {
        __asm__ volatile("pushq %%rax; popq %%rax" ::: "rsp", "memory");
        use(big, 8);
        s += big[i & 7];
    }
    return s;
}

// CHECK-LABEL: plain:
// CHECK-NOT: ito_coop_yield_abi
// CHECK: callq ito_coop_yield@PLT
// CHECK: .cfi_endproc
long plain(int n)
{
    long a[16];
    use(a, 16);
    long s = 0;
    for (int i = 0; i < n; i++) s += a[i & 15] * i;
    return s;
}
