; Thread-specific addresses are taken anew after every call or point where the ULT may have
; moved to another kernel thread (ThreadAddr.h): the optimiser computed errno's address and
; a thread_local's address once, before the loop; after the pass, every use after a call
; has its own __errno_location / llvm.threadlocal.address right before it (uses of one
; block with no call between share one). A use in the defining block with no call between
; keeps the original. -ito-yield-retake-tls=false
; keeps the caching (what the plugin did before).
; RUN: %opt -load-pass-plugin=%plugin -passes=ito-yield -ito-yield-policy=loops -S %s | %FileCheck %s
; RUN: %opt -load-pass-plugin=%plugin -passes=ito-yield -ito-yield-policy=loops -ito-yield-retake-tls=false -S %s \
; RUN:   | %FileCheck %s --check-prefix=OFF
; CHECK-LABEL: define i64 @loop(
; CHECK: ito.cont:
; CHECK-NEXT: %e = call ptr @__errno_location()
; CHECK-NEXT: store i32 0, ptr %e
; CHECK: body:
; CHECK: call i64 @sink(
; CHECK-NEXT: [[E1:%.*]] = call ptr @__errno_location()
; CHECK-NEXT: %v = load i32, ptr [[E1]]
; CHECK-NEXT: [[C1:%.*]] = call ptr @llvm.threadlocal.address.p0(ptr @counter)
; CHECK-NEXT: %old = load i64, ptr [[C1]]
; CHECK-NOT: call
; CHECK: store i64 %new, ptr [[C1]]
; CHECK-LABEL: define i64 @straight(
; CHECK: %a = call ptr @llvm.threadlocal.address.p0(ptr @counter)
; CHECK-NEXT: %x = load i64, ptr %a
; CHECK-NEXT: ret i64 %x
; An address computed from one (a field of a thread_local struct) is recomputed with it:
; CHECK-LABEL: define i64 @field(
; CHECK: call i64 @sink(
; CHECK-NEXT: [[B:%.*]] = call ptr @llvm.threadlocal.address.p0(ptr @pair)
; CHECK-NEXT: [[F:%.*]] = getelementptr inbounds i8, ptr [[B]], i64 8
; CHECK-NEXT: %v = load i64, ptr [[F]]
; So is the address as an integer (a per-thread key, a hash by address); an address used
; as a value, not as a load's or store's pointer, is taken by a call of its variable's
; helper: the X86 back end computes such values once per block for all copies (it takes
; the thread pointer as invariant), which undid the retake:
; CHECK-LABEL: define i64 @key(
; CHECK: call i64 @sink(
; CHECK-NEXT: [[K:%.*]] = call ptr @__ito_tls_addr.counter()
; CHECK-NEXT: [[KI:%.*]] = ptrtoint ptr [[K]] to i64
; CHECK-NEXT: %i1 = add i64 %i, [[KI]]
; The same in one block: passed to a call before and after a call that may switch (found
; by an outside tester, 2026-12-05):
; CHECK-LABEL: define void @value_twice(
; CHECK: %a = call ptr @llvm.threadlocal.address.p0(ptr @counter)
; CHECK-NEXT: call void @usep(ptr %a)
; CHECK-NEXT: %s = call i64 @sink(i64 0)
; CHECK-NEXT: [[V:%.*]] = call ptr @__ito_tls_addr.counter()
; CHECK-NEXT: call void @usep(ptr [[V]])
; CHECK-LABEL: define internal ptr @__ito_tls_addr.counter()
; CHECK-NEXT: call ptr @llvm.threadlocal.address.p0(ptr @counter)
; OFF-LABEL: define i64 @loop(
; OFF: body:
; OFF: call i64 @sink(
; OFF-NEXT: %v = load i32, ptr %e
; OFF-NEXT: %old = load i64, ptr %c
@counter = thread_local global i64 0
@pair = thread_local global [2 x i64] zeroinitializer
declare ptr @__errno_location() nounwind memory(none)
declare ptr @llvm.threadlocal.address.p0(ptr) nounwind memory(none)
declare i64 @sink(i64)
declare void @usep(ptr)
define i64 @loop(i64 %n) {
entry:
  %e = call ptr @__errno_location()
  store i32 0, ptr %e
  %c = call ptr @llvm.threadlocal.address.p0(ptr @counter)
  br label %body
body:
  %i = phi i64 [ 0, %entry ], [ %i1, %body ]
  %s = call i64 @sink(i64 %i)
  %v = load i32, ptr %e
  %old = load i64, ptr %c
  %v64 = sext i32 %v to i64
  %t = add i64 %old, %s
  %new = add i64 %t, %v64
  store i64 %new, ptr %c
  %i1 = add i64 %i, 1
  %done = icmp eq i64 %i1, %n
  br i1 %done, label %exit, label %body
exit:
  ret i64 %new
}
define i64 @straight() {
entry:
  %a = call ptr @llvm.threadlocal.address.p0(ptr @counter)
  %x = load i64, ptr %a
  ret i64 %x
}
define i64 @field(i64 %n) {
entry:
  %p = call ptr @llvm.threadlocal.address.p0(ptr @pair)
  %f = getelementptr inbounds i8, ptr %p, i64 8
  br label %body
body:
  %i = phi i64 [ 0, %entry ], [ %i1, %body ]
  %s = call i64 @sink(i64 %i)
  %v = load i64, ptr %f
  %i1 = add i64 %i, %v
  %done = icmp eq i64 %i1, %n
  br i1 %done, label %exit, label %body
exit:
  ret i64 %v
}
define i64 @key(i64 %n) {
entry:
  %p = call ptr @llvm.threadlocal.address.p0(ptr @counter)
  %k = ptrtoint ptr %p to i64
  br label %body
body:
  %i = phi i64 [ 0, %entry ], [ %i1, %body ]
  %s = call i64 @sink(i64 %i)
  %i1 = add i64 %i, %k
  %done = icmp eq i64 %i1, %n
  br i1 %done, label %exit, label %body
exit:
  ret i64 %i1
}
define void @value_twice() {
entry:
  %a = call ptr @llvm.threadlocal.address.p0(ptr @counter)
  call void @usep(ptr %a)
  %s = call i64 @sink(i64 0)
  call void @usep(ptr %a)
  ret void
}
