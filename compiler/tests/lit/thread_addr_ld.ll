; In a PIC module that is not a PIE (a shared library), the X86 back end reaches a
; variable of the module (a static thread_local) through the module's TLS block, and
; computes that block's address once per function for all such accesses, after the pass:
; the fresh address the pass put after a call would use the block of the kernel thread
; the ULT ran on before it. So where a function has two or more such accesses, each is a
; call of a small helper per variable that takes the address alone (ThreadAddr.cpp).
; RUN: %opt -load-pass-plugin=%plugin -passes=ito-yield -ito-yield-policy=loops -S %s | %FileCheck %s
; RUN: sed 's/"PIE Level", i32 0/"PIE Level", i32 2/' %s > %t.pie.ll
; RUN: %opt -load-pass-plugin=%plugin -passes=ito-yield -ito-yield-policy=loops -S %t.pie.ll \
; RUN:   | %FileCheck %s --check-prefix=PIE
; In @loop the access taken anew after the call is a helper's call already (in a PIC
; module every copy is, see @global), which leaves one access to the module's block in
; the function, before the call: nothing for the back end to share.
; CHECK-LABEL: define i64 @loop(
; CHECK: %a = call ptr @llvm.threadlocal.address.p0(ptr @ta)
; CHECK: call i64 @sink(
; CHECK-NEXT: [[B:%.*]] = call ptr @__ito_tls_addr.tb()
; CHECK-NEXT: %v = load i64, ptr [[B]]
; CHECK-NOT: llvm.threadlocal.address
; CHECK-LABEL: define i64 @one(
; CHECK: call ptr @llvm.threadlocal.address.p0(ptr @ta)
; A global variable (general-dynamic) taken anew after a call goes through its helper
; too: the back end may share __tls_get_addr's results (ThreadAddr.cpp, foldsIntoAccess).
; Any variable in a PIE (local-exec) keeps llvm.threadlocal.address for loads and stores.
; CHECK-LABEL: define i64 @global(
; CHECK: call i64 @sink(
; CHECK-NEXT: [[G:%.*]] = call ptr @__ito_tls_addr.tg()
; CHECK-NEXT: %v = load i64, ptr [[G]]
; CHECK: ret i64
; CHECK-LABEL: define internal ptr @__ito_tls_addr.tb()
; CHECK-NEXT: call ptr @llvm.threadlocal.address.p0(ptr @tb)
; CHECK-LABEL: define internal ptr @__ito_tls_addr.tg()
; PIE-NOT: __ito_tls_addr
@ta = internal thread_local global i64 0
@tb = internal thread_local global i64 0
@tg = thread_local global i64 0
declare i64 @sink(i64)
declare ptr @llvm.threadlocal.address.p0(ptr)
define i64 @loop(i64 %n) {
entry:
  %a = call ptr @llvm.threadlocal.address.p0(ptr @ta)
  store i64 1, ptr %a
  %b = call ptr @llvm.threadlocal.address.p0(ptr @tb)
  br label %body
body:
  %i = phi i64 [ 0, %entry ], [ %i1, %body ]
  %s = call i64 @sink(i64 %i)
  %v = load i64, ptr %b
  %i1 = add i64 %i, %v
  %done = icmp eq i64 %i1, %n
  br i1 %done, label %exit, label %body
exit:
  ret i64 %i1
}
define i64 @one() {
entry:
  %a = call ptr @llvm.threadlocal.address.p0(ptr @ta)
  %x = load i64, ptr %a
  ret i64 %x
}
define i64 @global(i64 %n) {
entry:
  %g = call ptr @llvm.threadlocal.address.p0(ptr @tg)
  br label %body
body:
  %i = phi i64 [ 0, %entry ], [ %i1, %body ]
  %s = call i64 @sink(i64 %i)
  %v = load i64, ptr %g
  %i1 = add i64 %i, %v
  %done = icmp eq i64 %i1, %n
  br i1 %done, label %exit, label %body
exit:
  ret i64 %i1
}
!llvm.module.flags = !{!0, !1}
!0 = !{i32 8, !"PIC Level", i32 2}
!1 = !{i32 7, !"PIE Level", i32 0}
