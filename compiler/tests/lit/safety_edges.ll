; Functions the pass must leave without a yield point (Safety.cpp, ModuleSafety::whyNot),
; the cases safety.c does not reach: a naked function (its body is the programmer's asm; a
; check before it would run with no frame), every runtime prefix (ito_, itoi_ and itoa_),
; and a function with two va_start: no va_end closes the region then (conservative), so a
; loop after the second va_end still gets no point.
; RUN: %opt -load-pass-plugin=%plugin -passes=ito-yield -ito-yield-policy=every \
; RUN:   -ito-yield-report -disable-output %s 2>&1 | %FileCheck %s
; RUN: %opt -load-pass-plugin=%plugin -passes=ito-yield -ito-yield-policy=every -S %s \
; RUN:   | %FileCheck %s --check-prefix=IR
;
; CHECK-DAG: ito-yield: bare: skipped (naked)
; CHECK-DAG: ito-yield: ito_rt: skipped (runtime)
; CHECK-DAG: ito-yield: itoi_rt: skipped (runtime)
; CHECK-DAG: ito-yield: itoa_rt: skipped (runtime)
; CHECK-DAG: ito-yield: plain: entry
; CHECK-NOT: ito-yield: twice: after
;
; IR-LABEL: define void @bare(
; IR-NEXT: call void asm sideeffect "ret", ""()
; IR-NEXT: unreachable
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

declare void @llvm.va_start.p0(ptr)
declare void @llvm.va_end.p0(ptr)
declare void @use(ptr)

define void @bare() #0 {
  call void asm sideeffect "ret", ""()
  unreachable
}

define i32 @ito_rt(i32 %a) {
entry:
  ret i32 %a
}

define i32 @itoi_rt(i32 %a) {
entry:
  ret i32 %a
}

define i32 @itoa_rt(i32 %a) {
entry:
  ret i32 %a
}

define i32 @plain(i32 %a) {
entry:
  ret i32 %a
}

define void @twice(i32 %n, ...) {
entry:
  %ap = alloca [24 x i8], align 16
  %aq = alloca [24 x i8], align 16
  call void @llvm.va_start.p0(ptr %ap)
  call void @llvm.va_start.p0(ptr %aq)
  call void @use(ptr %ap)
  call void @llvm.va_end.p0(ptr %ap)
  call void @llvm.va_end.p0(ptr %aq)
  br label %after
after:
  %i = phi i32 [ 0, %entry ], [ %i1, %after ]
  %i1 = add i32 %i, 1
  %c = icmp slt i32 %i1, %n
  br i1 %c, label %after, label %exit
exit:
  ret void
}

attributes #0 = { naked noinline }
