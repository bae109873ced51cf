; __builtin_thread_pointer() (llvm.thread.pointer, memory(none)) and glibc's const
; __res_state (the `_res` macro) are thread-specific addresses too (ThreadAddr.cpp): the
; optimiser computed each once for a whole loop, and after a call that may have moved the
; ULT the plugin used to keep them (the old worker's rseq area / resolver state; found by an
; outside tester, h63d, 2026-12-06; run-time test: compiler.tlsmove). After the pass, a use
; after a call has its own copy: __res_state is called again; the thread pointer is a call
; of the never-inlined helper __ito_thread_pointer (the X86 back end shares one %fs:0 read
; per block), which has no yield point of its own.
; RUN: %opt -load-pass-plugin=%plugin -passes=ito-yield -ito-yield-policy=loops -S %s | %FileCheck %s
;
; CHECK-LABEL: define i64 @tp_loop(
; CHECK: body:
; CHECK: call i64 @sink(
; CHECK-NEXT: [[T:%.*]] = call ptr @__ito_thread_pointer()
; CHECK-NEXT: {{%.*}} = ptrtoint ptr [[T]] to i64
;
; CHECK-LABEL: define i32 @res_loop(
; CHECK: body:
; CHECK: call i64 @sink(
; CHECK-NEXT: [[R:%.*]] = call ptr @__res_state()
; CHECK-NEXT: %v = load i32, ptr [[R]]
;
; CHECK-LABEL: define internal ptr @__ito_thread_pointer(
; CHECK-NOT: ito_coop
; CHECK: call ptr @llvm.thread.pointer()
; CHECK-NEXT: ret ptr
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

declare i64 @sink(i64)
declare ptr @llvm.thread.pointer()
declare ptr @__res_state() nounwind memory(none)

define i64 @tp_loop(i64 %n) {
entry:
  %t = call ptr @llvm.thread.pointer()
  br label %head
head:
  %i = phi i64 [ 0, %entry ], [ %i1, %body ]
  %acc = phi i64 [ 0, %entry ], [ %acc1, %body ]
  %c = icmp slt i64 %i, %n
  br i1 %c, label %body, label %exit
body:
  %s = call i64 @sink(i64 %i)
  %k = ptrtoint ptr %t to i64
  %acc1 = add i64 %acc, %k
  %i1 = add i64 %i, 1
  br label %head
exit:
  ret i64 %acc
}

define i32 @res_loop(i64 %n) {
entry:
  %r = call ptr @__res_state()
  br label %head
head:
  %i = phi i64 [ 0, %entry ], [ %i1, %body ]
  %acc = phi i32 [ 0, %entry ], [ %acc1, %body ]
  %c = icmp slt i64 %i, %n
  br i1 %c, label %body, label %exit
body:
  %s = call i64 @sink(i64 %i)
  %v = load i32, ptr %r
  %acc1 = add i32 %acc, %v
  %i1 = add i64 %i, 1
  br label %head
exit:
  ret i32 %acc
}
