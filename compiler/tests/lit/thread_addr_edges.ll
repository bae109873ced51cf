; Thread-specific addresses (ThreadAddr.cpp), the cases thread_addr.ll does not reach:
; h_errno's address is one (like errno's) and is taken anew after a call; a use in another
; block than its address's definition is retaken after a call there even when the rest of
; the defining block has no call; and taking a thread address is not itself a switch, so
; two thread addresses used in turn in one block with no other call between are not
; retaken.
; RUN: %opt -load-pass-plugin=%plugin -passes=ito-yield -ito-yield-policy=loops -S %s | %FileCheck %s
;
; CHECK-LABEL: define i32 @herr(
; CHECK: call i64 @sink(
; CHECK-NEXT: [[H:%.*]] = call ptr @__h_errno_location()
; CHECK-NEXT: %v = load i32, ptr [[H]]
;
; CHECK-LABEL: define i32 @other_block(
; CHECK: next:
; CHECK-NEXT: %s = call i64 @sink(
; CHECK-NEXT: [[E:%.*]] = call ptr @__errno_location()
; CHECK-NEXT: %v = load i32, ptr [[E]]
;
; CHECK-LABEL: define void @two_addresses(
; CHECK: ito.cont:
; CHECK-NEXT: %a = call ptr @llvm.threadlocal.address.p0(ptr @counter)
; CHECK-NEXT: %e = call ptr @__errno_location()
; CHECK-NEXT: store i64 1, ptr %a
; CHECK-NEXT: store i32 0, ptr %e
; CHECK-NEXT: ret void
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

@counter = thread_local global i64 0
declare ptr @__errno_location() nounwind memory(none)
declare ptr @__h_errno_location() nounwind memory(none)
declare ptr @llvm.threadlocal.address.p0(ptr) nounwind memory(none)
declare i64 @sink(i64)

define i32 @herr() {
entry:
  %h = call ptr @__h_errno_location()
  %s = call i64 @sink(i64 0)
  %v = load i32, ptr %h
  ret i32 %v
}

define i32 @other_block() {
entry:
  %e = call ptr @__errno_location()
  br label %next
next:
  %s = call i64 @sink(i64 0)
  %v = load i32, ptr %e
  ret i32 %v
}

define void @two_addresses() {
entry:
  %a = call ptr @llvm.threadlocal.address.p0(ptr @counter)
  %e = call ptr @__errno_location()
  store i64 1, ptr %a
  store i32 0, ptr %e
  ret void
}
