; Policy bound with -ito-yield-unroll=K (Bound.cpp, unrollSmallLoops): an innermost loop of
; unknown trip count whose iteration is cheap is unrolled K times, the exit test kept in
; every copy, so its header check runs once per K iterations. Not in an optnone function
; (what clang -O0 makes: the pass runs there too, but must not transform the code beyond
; its checks), not with the default K = 1, and not for a loop whose iteration costs more
; than -ito-yield-unroll-body.
; RUN: %opt -load-pass-plugin=%plugin -passes=ito-yield -ito-yield-policy=bound \
; RUN:   -ito-yield-bound=100 -ito-yield-unroll=4 -S %s | %FileCheck %s
; RUN: %opt -load-pass-plugin=%plugin -passes=ito-yield -ito-yield-policy=bound \
; RUN:   -ito-yield-bound=100 -S %s | %FileCheck %s --check-prefix=OFF
; RUN: %opt -load-pass-plugin=%plugin -passes=ito-yield -ito-yield-policy=bound \
; RUN:   -ito-yield-bound=100 -ito-yield-unroll=4 -ito-yield-unroll-body=1 -S %s \
; RUN:   | %FileCheck %s --check-prefix=OFF
;
; CHECK-LABEL: define i32 @fast(
; CHECK-COUNT-4: icmp slt i32
; CHECK-NOT: icmp slt i32
; CHECK-LABEL: define i32 @slow(
; CHECK-COUNT-1: icmp slt i32
; CHECK-NOT: icmp slt i32
; CHECK: ret i32
;
; OFF-LABEL: define i32 @fast(
; OFF-COUNT-1: icmp slt i32
; OFF-NOT: icmp slt i32
; OFF-LABEL: define i32 @slow(
; OFF-COUNT-1: icmp slt i32
; OFF-NOT: icmp slt i32
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

define i32 @fast(i32 %n) {
entry:
  br label %head
head:
  %i = phi i32 [ 0, %entry ], [ %i1, %head ]
  %s = phi i32 [ 0, %entry ], [ %s1, %head ]
  %s1 = add i32 %s, %i
  %i1 = add i32 %i, 1
  %c = icmp slt i32 %i1, %n
  br i1 %c, label %head, label %exit
exit:
  ret i32 %s1
}

define i32 @slow(i32 %n) #0 {
entry:
  br label %head
head:
  %i = phi i32 [ 0, %entry ], [ %i1, %head ]
  %s = phi i32 [ 0, %entry ], [ %s1, %head ]
  %s1 = add i32 %s, %i
  %i1 = add i32 %i, 1
  %c = icmp slt i32 %i1, %n
  br i1 %c, label %head, label %exit
exit:
  ret i32 %s1
}

attributes #0 = { noinline optnone }
