; The side of a block with fewer live IR values gets the point; ties go to the beginning.
; RUN: %opt -load-pass-plugin=%plugin -passes=ito-yield -ito-yield-report -S %s -o %t.ll 2> %t.rep
; RUN: %FileCheck %s < %t.ll
; RUN: %FileCheck %s --check-prefix=REP < %t.rep

; Reported in reverse post order of each function.
; REP: ito-yield: f: entry end live_begin=3 live_end=1
; REP-NEXT: ito-yield: f: e begin live_begin=0 live_end=0
; REP-NEXT: ito-yield: f: t begin live_begin=1 live_end=1
; REP-NEXT: ito-yield: g: entry begin live_begin=1 live_end=4
; REP-NEXT: ito-yield: g: use end live_begin=4 live_end=1

; In @f three arguments are live at the top, only %z at the bottom: the point goes
; at the end, before the single-use compare that feeds the branch.
; CHECK-LABEL: define i32 @f(
; CHECK: entry:
; CHECK-NEXT: %x = add i32 %a, %b
; CHECK-NEXT: %y = mul i32 %x, %c
; CHECK-NEXT: %z = sub i32 %y, %a
; CHECK-NEXT: call ptr @llvm.threadlocal.address.p0(ptr @ito_coop_flag)
; CHECK-NEXT: %ito.flag = load volatile i32, ptr
; CHECK-NEXT: %ito.due = icmp ne i32 %ito.flag, 0
; CHECK-NEXT: br i1 %ito.due, label %ito.yield, label %ito.cont, !prof [[W:![0-9]+]]
; CHECK: ito.yield:
; CHECK-NEXT: call preserve_nonecc void @ito_coop_yield()
; CHECK-NEXT: br label %ito.cont
; CHECK: ito.cont:
; CHECK-NEXT: %cmp = icmp sgt i32 %z, 0
; CHECK-NEXT: br i1 %cmp, label %t, label %e
define i32 @f(i32 %a, i32 %b, i32 %c) {
entry:
  %x = add i32 %a, %b
  %y = mul i32 %x, %c
  %z = sub i32 %y, %a
  %cmp = icmp sgt i32 %z, 0
  br i1 %cmp, label %t, label %e
t:
  ret i32 %z
e:
  ret i32 0
}

; In @g one value is live at the top and four at the bottom: the point goes first.
; CHECK-LABEL: define i32 @g(
; CHECK: entry:
; CHECK-NEXT: call ptr @llvm.threadlocal.address.p0(ptr @ito_coop_flag)
define i32 @g(ptr %p) {
entry:
  %a = load i32, ptr %p
  %q = getelementptr i32, ptr %p, i64 1
  %b = load i32, ptr %q
  %r = getelementptr i32, ptr %p, i64 2
  %c = load i32, ptr %r
  %s = getelementptr i32, ptr %p, i64 3
  %d = load i32, ptr %s
  br label %use
use:
  %ab = add i32 %a, %b
  %cd = add i32 %c, %d
  %all = add i32 %ab, %cd
  ret i32 %all
}

; The yield is declared preserve_none and nounwind; the guard is predicted not taken.
; CHECK: declare preserve_nonecc void @ito_coop_yield() #[[A:[0-9]+]]
; CHECK: attributes #[[A]] = { nounwind }
; CHECK: [[W]] = !{!"branch_weights", i32 1, i32 {{[0-9]+}}}
