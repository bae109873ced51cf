; Policy bound: as few checks as keep every path between two checks under B.
; RUN: %opt -load-pass-plugin=%plugin -passes=ito-yield -ito-yield-policy=bound \
; RUN:   -ito-yield-bound=100 -ito-yield-report -ito-yield-dry-run -disable-output %s 2>&1 \
; RUN:   | %FileCheck %s
; RUN: %opt -load-pass-plugin=%plugin -passes=ito-yield -ito-yield-policy=bound \
; RUN:   -ito-yield-bound=100 -ito-yield-report -ito-yield-dry-run -disable-output %s 2>&1 \
; RUN:   | %FileCheck %s --check-prefix=CB
; A function whose address is taken (a callback outside code may call in a loop) checks on
; entry; the same body called only directly (@leaf) does not.
; CB: ito-yield: cb: entry begin
; CB-NOT: ito-yield: leaf: entry
; Callees are placed before callers (bottom-up call graph), so @leaf comes first.
; A straight-line function under B gets no check; its summary has no check (P=-1) and a
; checkless path (T) that callers add to their distance.
; CHECK: ito-yield: leaf: summary P=-1 T={{[0-9]+}} S=-1
; A loop whose trip count is unknown gets a check at its header.
; CHECK: ito-yield: unknown: head begin
; CHECK-NEXT: ito-yield: unknown: summary P={{[0-9]+}} T=-1 S={{[0-9]+}}
; A loop of 4 iterations whose whole run fits in B is collapsed: no check.
; CHECK-NOT: ito-yield: small: head
; CHECK: ito-yield: small: summary P=-1
; A loop of 1000 iterations does not fit: its header gets a check.
; CHECK: ito-yield: big: head begin
; Recursion: a check before and after the recursive call.
; CHECK: ito-yield: rec: more mid
; CHECK-NEXT: ito-yield: rec: more mid
; CHECK-NEXT: ito-yield: rec: summary
; Many calls of a checkless callee push the distance over B: checks between them.
; CHECK: ito-yield: caller: entry mid
; CHECK-NEXT: ito-yield: caller: summary P={{[0-9]+}}
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

@table = global ptr @cb

define i32 @cb(i32 %a) {
entry:
  %x = mul i32 %a, 3
  ret i32 %x
}

define i32 @leaf(i32 %a) {
entry:
  %x = mul i32 %a, 3
  %y = add i32 %x, 7
  %z = xor i32 %y, %a
  ret i32 %z
}

define i32 @unknown(i32 %n) {
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

define i32 @small(ptr %p) {
entry:
  br label %head
head:
  %i = phi i64 [ 0, %entry ], [ %i1, %head ]
  %s = phi i32 [ 0, %entry ], [ %s1, %head ]
  %q = getelementptr i32, ptr %p, i64 %i
  %v = load i32, ptr %q
  %s1 = add i32 %s, %v
  %i1 = add i64 %i, 1
  %c = icmp ult i64 %i1, 4
  br i1 %c, label %head, label %exit
exit:
  ret i32 %s1
}

define i32 @big(ptr %p) {
entry:
  br label %head
head:
  %i = phi i64 [ 0, %entry ], [ %i1, %head ]
  %s = phi i32 [ 0, %entry ], [ %s1, %head ]
  %q = getelementptr i32, ptr %p, i64 %i
  %v = load i32, ptr %q
  %s1 = add i32 %s, %v
  %i1 = add i64 %i, 1
  %c = icmp ult i64 %i1, 1000
  br i1 %c, label %head, label %exit
exit:
  ret i32 %s1
}

define i32 @rec(i32 %n) {
entry:
  %c = icmp sgt i32 %n, 0
  br i1 %c, label %more, label %done
more:
  %m = sub i32 %n, 1
  %r = call i32 @rec(i32 %m)
  %s = add i32 %r, %n
  ret i32 %s
done:
  ret i32 0
}

define i32 @caller(i32 %a) {
entry:
  %x0 = call i32 @leaf(i32 %a)
  %x1 = call i32 @leaf(i32 %x0)
  %x2 = call i32 @leaf(i32 %x1)
  %x3 = call i32 @leaf(i32 %x2)
  %x4 = call i32 @leaf(i32 %x3)
  %x5 = call i32 @leaf(i32 %x4)
  %x6 = call i32 @leaf(i32 %x5)
  %x7 = call i32 @leaf(i32 %x6)
  %x8 = call i32 @leaf(i32 %x7)
  %x9 = call i32 @leaf(i32 %x8)
  %y0 = call i32 @leaf(i32 %x9)
  %y1 = call i32 @leaf(i32 %y0)
  %y2 = call i32 @leaf(i32 %y1)
  %y3 = call i32 @leaf(i32 %y2)
  %y4 = call i32 @leaf(i32 %y3)
  %y5 = call i32 @leaf(i32 %y4)
  %y6 = call i32 @leaf(i32 %y5)
  %y7 = call i32 @leaf(i32 %y6)
  %y8 = call i32 @leaf(i32 %y7)
  %y9 = call i32 @leaf(i32 %y8)
  ret i32 %y9
}
