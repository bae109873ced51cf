// The pass runs at every optimisation level (at -O0 on optnone functions too), the guard
// is one %fs-relative load and a branch, and the minimal yield is called.
// RUN: %clang -O0 -S %s -o - -Xclang -load -Xclang %plugin -fpass-plugin=%plugin \
// RUN:   | %FileCheck %s --check-prefix=O0
// RUN: %clang -O1 -S %s -o - -Xclang -load -Xclang %plugin -fpass-plugin=%plugin | %FileCheck %s
// RUN: %clang -O2 -S %s -o - -Xclang -load -Xclang %plugin -fpass-plugin=%plugin | %FileCheck %s
// RUN: %clang -O3 -S %s -o - -Xclang -load -Xclang %plugin -fpass-plugin=%plugin | %FileCheck %s
// RUN: %clang -Os -S %s -o - -Xclang -load -Xclang %plugin -fpass-plugin=%plugin | %FileCheck %s
// At -O0 the entry block's allocas stay in the entry block, in front of the guard.
// RUN: %clang -O0 -S -emit-llvm %s -o - -Xclang -load -Xclang %plugin -fpass-plugin=%plugin \
// RUN:   | %FileCheck %s --check-prefix=IR0
// CHECK-LABEL: count:
// CHECK: ito_coop_flag@GOTTPOFF(%rip), %[[R:[a-z0-9]+]]
// CHECK: cmpl $0, %fs:(%[[R]])
// CHECK-NEXT: j{{ne|e}}
// CHECK: call{{q?}} ito_coop_yield@PLT
// -O0 computes the address from the thread pointer at each point, then loads:
// O0-LABEL: count:
// O0: movq ito_coop_flag@GOTTPOFF(%rip), %[[R:[a-z0-9]+]]
// O0-NEXT: movq %fs:0, %[[A:[a-z0-9]+]]
// O0-NEXT: addq %[[R]], %[[A]]
// O0-NEXT: movl (%[[A]]), %[[V:[a-z0-9]+]]
// O0-NEXT: cmpl $0, %[[V]]
// O0-NEXT: je
// O0: callq ito_coop_yield@PLT
// IR0-LABEL: define {{.*}}i32 @count(
// IR0-NEXT: alloca
// IR0-NEXT: alloca
// IR0-NEXT: alloca
// IR0-NEXT: alloca
// IR0-NEXT: store
// IR0: call ptr @llvm.threadlocal.address.p0(ptr @ito_coop_flag)
// IR0-NOT: alloca
// IR0: ret i32
unsigned count(const char *s, char c) {
    unsigned n = 0;
    for (unsigned i = 0; s[i]; i++)
        n += s[i] == c;
    return n;
}
