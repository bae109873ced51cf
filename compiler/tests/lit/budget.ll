; The budget check (-ito-yield-check=budget, Budget.h and Insert.h): each point subtracts
; the estimated instructions since the previous point from the TLS word ito_coop_budget
; and yields when it goes negative. The weights are expected values by the static profile
; (Budget.h): the entry's point, at the end of the entry block, counts the 7 multiplications
; before it; the loop header's, one iteration (its share of the way in is ~0); in @skewed an
; iteration is 8 on average (8 on the common path, 29 through the branch taken 1 in 100),
; where the longest path would charge 29 every time. By default the function keeps the
; countdown in a register: copied in at entry and after calls, out before calls, returns
; and yields; a call right before ret takes nothing back (it stays a tail call); a
; function with a musttail call counts down the word in memory, as all do with
; -ito-yield-budget-reg=false (folded by the back end into one `addl $-W, %fs:...`).
; RUN: %opt -load-pass-plugin=%plugin -passes=ito-yield -ito-yield-policy=loops \
; RUN:   -ito-yield-check=budget -ito-yield-report -disable-output %s 2>&1 | %FileCheck %s --check-prefix=W
; RUN: %opt -load-pass-plugin=%plugin -passes=ito-yield -ito-yield-policy=loops \
; RUN:   -ito-yield-check=budget -S %s | %FileCheck %s --check-prefix=REG
; RUN: %opt -load-pass-plugin=%plugin -passes=ito-yield -ito-yield-policy=loops \
; RUN:   -ito-yield-check=budget -ito-yield-budget-reg=false -S %s | %FileCheck %s --check-prefix=MEM
; RUN: %opt -load-pass-plugin=%plugin -passes=ito-yield -ito-yield-policy=loops \
; RUN:   -ito-yield-check=budget -ito-yield-budget-reg=false -ito-yield-tls=local-exec %s -o %t.bc
; RUN: %clang -O2 -S %t.bc -o - 2>/dev/null | %FileCheck %s --check-prefix=ASM
;
; W: ito-yield: sum: entry end live_begin={{[0-9]+}} live_end={{[0-9]+}} budget=7
; W-NEXT: ito-yield: sum: head begin live_begin={{[0-9]+}} live_end={{[0-9]+}} budget=6
; W: ito-yield: skewed: head begin live_begin={{[0-9]+}} live_end={{[0-9]+}} budget=8
;
; REG-LABEL: define i32 @sum(
; REG-NOT: alloca
; REG: entry:
; REG-NEXT: [[A0:%.*]] = call ptr @llvm.threadlocal.address.p0(ptr @ito_coop_budget)
; REG-NEXT: [[B0:%.*]] = load volatile i32, ptr [[A0]]
; REG: %ito.left = sub i32 [[B0]], 7
; REG: ito.yield:
; REG: store volatile i32 %ito.left, ptr
; REG-NEXT: call preserve_nonecc void @ito_coop_yield()
; REG-NEXT: call ptr @llvm.threadlocal.address.p0(ptr @ito_coop_budget)
; REG-NEXT: load volatile i32
; REG: head:
; REG-NEXT: [[CNT:%ito.budget.slot[.0-9]*]] = phi i32
; REG: sub i32 [[CNT]], 6
; REG: out:
; REG-NEXT: call ptr @llvm.threadlocal.address.p0(ptr @ito_coop_budget)
; REG-NEXT: store volatile i32 [[OUT:%ito.budget.slot[.0-9]*]], ptr
; REG-NEXT: call void @ext(
; REG-NEXT: call ptr @llvm.threadlocal.address.p0(ptr @ito_coop_budget)
; REG-NEXT: [[BACK:%.*]] = load volatile i32
; REG: store volatile i32 [[BACK]], ptr
; REG-NEXT: ret i32
; REG-LABEL: define i32 @tailer(
; REG: ito.cont:
; REG: store volatile i32
; REG-NEXT: %r = tail call i32 @g(i32 %x)
; REG-NEXT: ret i32 %r
; REG-LABEL: define i32 @must(
; REG: load volatile i32, ptr
; REG-NEXT: %ito.left = sub i32 %ito.budget, {{[0-9]+}}
; REG-NEXT: store volatile i32 %ito.left, ptr
;
; MEM-LABEL: define i32 @sum(
; MEM-NOT: alloca
; MEM: head:
; MEM: %ito.budget{{[0-9]*}} = load volatile i32, ptr
; MEM-NEXT: [[L:%ito.left[0-9]*]] = sub i32 %ito.budget{{[0-9]*}}, 6
; MEM-NEXT: store volatile i32 [[L]], ptr
; MEM-NEXT: %ito.due{{[0-9]*}} = icmp slt i32 [[L]], 0
;
; ASM-LABEL: sum:
; ASM: addl $-7, %fs:ito_coop_budget@TPOFF
; ASM-NEXT: js
; ASM: addl $-6, %fs:ito_coop_budget@TPOFF
; ASM-NEXT: js
declare void @ext(i32)
declare i32 @g(i32)
define i32 @sum(ptr %p, i32 %n, i32 %a, i32 %b) {
entry:
  %m0 = mul i32 %a, %b
  %m1 = mul i32 %m0, %a
  %m2 = mul i32 %m1, %b
  %m3 = mul i32 %m2, %a
  %m4 = mul i32 %m3, %b
  %m5 = mul i32 %m4, %a
  %m6 = mul i32 %m5, %b
  br label %head
head:
  %i = phi i32 [ 0, %entry ], [ %i1, %head ]
  %s = phi i32 [ %m6, %entry ], [ %s1, %head ]
  %q = getelementptr i32, ptr %p, i32 %i
  %v = load i32, ptr %q
  %s1 = add i32 %s, %v
  %i1 = add i32 %i, 1
  %c = icmp slt i32 %i1, %n
  br i1 %c, label %head, label %out
out:
  call void @ext(i32 %s1)
  %r = add i32 %s1, 1
  ret i32 %r
}
define i32 @tailer(i32 %x) {
entry:
  %r = tail call i32 @g(i32 %x)
  ret i32 %r
}
define i32 @must(i32 %x) {
entry:
  %r = musttail call i32 @g(i32 %x)
  ret i32 %r
}
define i32 @skewed(ptr %p, i32 %n) {
entry:
  br label %head
head:
  %i = phi i32 [ 0, %entry ], [ %i1, %latch ]
  %s = phi i32 [ 0, %entry ], [ %s2, %latch ]
  %q = getelementptr i32, ptr %p, i32 %i
  %v = load i32, ptr %q
  %rare = icmp eq i32 %v, 12345
  br i1 %rare, label %slow, label %latch, !prof !0
slow:
  %a0 = mul i32 %v, %v
  %a1 = mul i32 %a0, %v
  %a2 = mul i32 %a1, %v
  %a3 = mul i32 %a2, %v
  %a4 = mul i32 %a3, %v
  %a5 = mul i32 %a4, %v
  %a6 = mul i32 %a5, %v
  %a7 = mul i32 %a6, %v
  %a8 = mul i32 %a7, %v
  %a9 = mul i32 %a8, %v
  %b0 = mul i32 %a9, %v
  %b1 = mul i32 %b0, %v
  %b2 = mul i32 %b1, %v
  %b3 = mul i32 %b2, %v
  %b4 = mul i32 %b3, %v
  %b5 = mul i32 %b4, %v
  %b6 = mul i32 %b5, %v
  %b7 = mul i32 %b6, %v
  %b8 = mul i32 %b7, %v
  %b9 = mul i32 %b8, %v
  br label %latch
latch:
  %t = phi i32 [ %b9, %slow ], [ %v, %head ]
  %s2 = add i32 %s, %t
  %i1 = add i32 %i, 1
  %c = icmp slt i32 %i1, %n
  br i1 %c, label %head, label %out, !prof !1
out:
  ret i32 %s2
}
!0 = !{!"branch_weights", i32 1, i32 99}
!1 = !{!"branch_weights", i32 999, i32 1}
