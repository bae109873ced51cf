// ito-cc --ito-variant=stub binds every site to a stub of its live registers, after code
// generation, in the assembly it writes; --ito-stubs=full binds them all to the full stub.
// RUN: %itocc --ito-variant=stub -O2 -S %s -o %t.s
// RUN: %FileCheck %s --check-prefix=LIVE < %t.s
// RUN: %itocc --ito-variant=stub --ito-stubs=full -O2 -S %s -o %t.full.s
// RUN: %FileCheck %s --check-prefix=FULL < %t.full.s
// RUN: %itocc --ito-variant=stub -O1 -c %s -o %t.o
// The stubs (AT&T syntax) assemble after a module clang wrote in Intel syntax.
// RUN: %itocc --ito-variant=stub -O2 -masm=intel -c %s -o %t.intel.o
// RUN: %itocc --ito-variant=stub -O2 -masm=intel -S %s -o %t.intel.s
// RUN: %FileCheck %s --check-prefix=INTEL < %t.intel.s
// RUN: ! %itocc --ito-variant=stub -O2 -S -emit-llvm %s -o %t.ll
// RUN: ! %itocc --ito-stubs=some -O2 -c %s -o %t.o
// The loop's site: the accumulator, the pointer and the count are live and saved; the
// stub calls the runtime's minimal yield.
// LIVE: callq .Lito_ys_0
// LIVE: __ito_ys_{{[a-z0-9_]+}}:
// LIVE: pushq %rbp
// LIVE: callq ito_coop_yield@PLT
// LIVE: leave
// LIVE: .set .Lito_ys_0, __ito_ys_
// INTEL: .intel_syntax noprefix
// INTEL: .att_syntax prefix
// INTEL: pushq %rbp
// FULL: __ito_ys_full:
// FULL: xsave64 (%rsp)
// FULL: xrstor64 (%rsp)
// FULL: .set .Lito_ys_0, __ito_ys_full
// FULL-NOT: .set .Lito_ys_{{[0-9]+}}, __ito_ys_{{[a-eg-z]}}
long sum(const long *p, long n) {
    long s = 0;
    for (long i = 0; i < n; i++)
        s += p[i] * (i | 1);
    return s;
}
