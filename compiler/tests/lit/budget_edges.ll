; The edges of the budget check (Budget.h, Insert.cpp): a point yields when the countdown
; goes negative (signed `< 0`, not `<= 0`), in the register form and in memory; and no point
; weighs less than 1, not even one at the very beginning of a function, where nothing ran
; since the previous point: a recursion whose only check is at its entry would otherwise
; never count down and never yield.
; RUN: %opt -load-pass-plugin=%plugin -passes=ito-yield -ito-yield-policy=every \
; RUN:   -ito-yield-place=begin -ito-yield-check=budget -ito-yield-report -disable-output %s 2>&1 \
; RUN:   | %FileCheck %s --check-prefix=W
; RUN: %opt -load-pass-plugin=%plugin -passes=ito-yield -ito-yield-policy=every \
; RUN:   -ito-yield-place=begin -ito-yield-check=budget -S %s | %FileCheck %s --check-prefix=REG
; RUN: %opt -load-pass-plugin=%plugin -passes=ito-yield -ito-yield-policy=every \
; RUN:   -ito-yield-place=begin -ito-yield-check=budget -ito-yield-budget-reg=false -S %s \
; RUN:   | %FileCheck %s --check-prefix=MEM
;
; W: ito-yield: rec: entry begin live_begin={{[0-9]+}} live_end={{[0-9]+}} budget=1
;
; REG-LABEL: define i32 @rec(
; REG: [[L:%ito.left[0-9]*]] = sub i32 %{{.*}}, 1
; REG-NEXT: %ito.due{{[0-9]*}} = icmp slt i32 [[L]], 0
;
; MEM-LABEL: define i32 @rec(
; MEM: [[B:%ito.budget[0-9]*]] = load volatile i32, ptr
; MEM-NEXT: [[L:%ito.left[0-9]*]] = sub i32 [[B]], 1
; MEM-NEXT: store volatile i32 [[L]], ptr
; MEM-NEXT: %ito.due{{[0-9]*}} = icmp slt i32 [[L]], 0
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

define i32 @rec(i32 %n) {
entry:
  %r = call i32 @rec(i32 %n)
  %s = add i32 %r, %n
  ret i32 %s
}

; A function with an invoke keeps the countdown in memory (Insert.cpp: the way out of an
; invoke is an edge, so there is no single place to take the word back after the call):
; in the register form the callee's countdown would be overwritten by the caller's stale
; copy, and a loop around a C++ call that may throw would never yield.
; REG-LABEL: define i32 @thrower(
; REG-NOT: ito.budget.slot
; REG: [[B:%ito.budget[0-9]*]] = load volatile i32, ptr
; REG-NEXT: [[L:%ito.left[0-9]*]] = sub i32 [[B]], {{[0-9]+}}
; REG-NEXT: store volatile i32 [[L]], ptr
; REG-LABEL: define i32 @after(
declare i32 @may_throw(i32)
declare i32 @__gxx_personality_v0(...)

define i32 @thrower(i32 %n) personality ptr @__gxx_personality_v0 {
entry:
  %x = invoke i32 @may_throw(i32 %n) to label %ok unwind label %lp
ok:
  %y = add i32 %x, 1
  ret i32 %y
lp:
  %e = landingpad { ptr, i32 } cleanup
  ret i32 0
}

define i32 @after(i32 %n) {
entry:
  ret i32 %n
}
