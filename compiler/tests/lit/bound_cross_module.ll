; Policy bound: a cycle through another module passes a check. @a calls @b, defined in
; another file, and @b may call @a back (a recursion split over two files: without the
; entry check it ran 0.2 s with no check, h74b): a function that other modules may call
; checks at its entry when it may call out of the module, directly or through its callees.
; RUN: %opt -load-pass-plugin=%plugin -passes=ito-yield -ito-yield-policy=bound \
; RUN:   -ito-yield-bound=100 -ito-yield-report -ito-yield-dry-run -disable-output %s 2>&1 \
; RUN:   | %FileCheck %s
; RUN: %opt -load-pass-plugin=%plugin -passes=ito-yield -ito-yield-policy=bound \
; RUN:   -ito-yield-bound=100 -ito-yield-report -ito-yield-dry-run -disable-output %s 2>&1 \
; RUN:   | %FileCheck %s --check-prefix=NO
; CHECK-DAG: ito-yield: a: entry begin
; An indirect call may reach outside code too.
; CHECK-DAG: ito-yield: indirect: entry begin
; Through a callee of the module (of local linkage) that calls out.
; CHECK-DAG: ito-yield: via: entry begin
; A function of local linkage is reached only through the module's own functions, and
; the C library's functions (strlen) call nothing back: no entry check for those.
; NO-NOT: ito-yield: local_out: entry
; NO-NOT: ito-yield: libc_only: entry
; NO-NOT: ito-yield: leaf: entry
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

declare i64 @b(i64)
declare i64 @strlen(ptr)

define i64 @a(i64 %n) {
entry:
  %c = icmp slt i64 %n, 2
  br i1 %c, label %done, label %more
more:
  %m1 = sub i64 %n, 1
  %r1 = call i64 @b(i64 %m1)
  %m2 = sub i64 %n, 2
  %r2 = call i64 @b(i64 %m2)
  %s = add i64 %r1, %r2
  ret i64 %s
done:
  ret i64 %n
}

define i64 @indirect(ptr %f, i64 %n) {
entry:
  %r = call i64 %f(i64 %n)
  ret i64 %r
}

define internal i64 @local_out(i64 %n) {
entry:
  %r = call i64 @b(i64 %n)
  ret i64 %r
}

define i64 @via(i64 %n) {
entry:
  %r = call i64 @local_out(i64 %n)
  ret i64 %r
}

define i64 @libc_only(ptr %p) {
entry:
  %r = call i64 @strlen(ptr %p)
  ret i64 %r
}

define i64 @leaf(i64 %n) {
entry:
  %r = mul i64 %n, 3
  ret i64 %r
}
