; The stub variant in functions whose calling convention saves more registers than the
; SysV ABI (ms_abi: rsi, rdi, xmm6-15; preserve_most; no_caller_saved_registers): no
; per-site stub there (its live sets assume SysV exits: an ms_abi function's yield
; clobbered its SysV caller's rdi, found by an outside-code test on 2026-12-03), an
; ordinary call of the ABI-preserving yield instead, which the back end saves around.
; RUN: %opt -load-pass-plugin=%plugin -passes=ito-yield -ito-yield-variant=stub -S %s \
; RUN:   | %FileCheck %s
; CHECK-LABEL: define i32 @sysv(
; CHECK: call void asm sideeffect "{{.*}}call .Lito_ys_
; CHECK-NOT: ito_coop_yield_abi
; CHECK-LABEL: define win64cc i32 @msabi(
; CHECK-NOT: .Lito_ys_
; CHECK: call void @ito_coop_yield_abi()
; CHECK-LABEL: define preserve_mostcc i32 @most(
; CHECK-NOT: .Lito_ys_
; CHECK: call void @ito_coop_yield_abi()
; CHECK-LABEL: define i32 @nocsr(
; CHECK-NOT: .Lito_ys_
; CHECK: call void @ito_coop_yield_abi()
; CHECK-LABEL: define fastcc i32 @fast(
; CHECK: call void asm sideeffect "{{.*}}call .Lito_ys_
define i32 @sysv(i32 %n) {
entry:
  %c = icmp sgt i32 %n, 0
  br i1 %c, label %a, label %b
a:
  ret i32 1
b:
  ret i32 0
}

define win64cc i32 @msabi(i32 %n) {
entry:
  %c = icmp sgt i32 %n, 0
  br i1 %c, label %a, label %b
a:
  ret i32 1
b:
  ret i32 0
}

define preserve_mostcc i32 @most(i32 %n) {
entry:
  %c = icmp sgt i32 %n, 0
  br i1 %c, label %a, label %b
a:
  ret i32 1
b:
  ret i32 0
}

define i32 @nocsr(i32 %n) "no_caller_saved_registers" {
entry:
  %c = icmp sgt i32 %n, 0
  br i1 %c, label %a, label %b
a:
  ret i32 1
b:
  ret i32 0
}

define fastcc i32 @fast(i32 %n) {
entry:
  %c = icmp sgt i32 %n, 0
  br i1 %c, label %a, label %b
a:
  ret i32 1
b:
  ret i32 0
}
