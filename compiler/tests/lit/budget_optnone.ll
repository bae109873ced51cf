; The budget check in an optnone function (what clang -O0 makes): the countdown is kept in
; memory, not in a local. At -O0 no mem2reg runs after the pass, so the local stayed a
; stack slot and fast register allocation gave every copy in and out of it its own slot:
; frames grew 3 to 6 times, and a recursive descent parser that fits a 64 KiB ULT stack
; built plainly at -O0 overflowed it when built with ito-cc --ito-check=budget -O0
; (outside tester h59d, 2026-12-05). An ordinary function of the same module keeps the
; register form.
; RUN: %opt -load-pass-plugin=%plugin -passes=ito-yield -ito-yield-policy=loops \
; RUN:   -ito-yield-check=budget -S %s | %FileCheck %s
;
; CHECK-LABEL: define i32 @slow(
; CHECK-NOT: ito.budget.slot
; CHECK: head:
; CHECK: %ito.budget{{[0-9]*}} = load volatile i32, ptr
; CHECK-NEXT: [[L:%ito.left[0-9]*]] = sub i32 %ito.budget{{[0-9]*}}, {{[0-9]+}}
; CHECK-NEXT: store volatile i32 [[L]], ptr
; CHECK-LABEL: define i32 @fast(
; CHECK: ito.budget.slot
declare void @ext(i32)
define i32 @slow(ptr %p, i32 %n) #0 {
entry:
  br label %head
head:
  %i = phi i32 [ 0, %entry ], [ %i1, %head ]
  %s = phi i32 [ 0, %entry ], [ %s1, %head ]
  %q = getelementptr i32, ptr %p, i32 %i
  %v = load i32, ptr %q
  %s1 = add i32 %s, %v
  %i1 = add i32 %i, 1
  %c = icmp slt i32 %i1, %n
  br i1 %c, label %head, label %out
out:
  call void @ext(i32 %s1)
  ret i32 %s1
}
define i32 @fast(ptr %p, i32 %n) {
entry:
  br label %head
head:
  %i = phi i32 [ 0, %entry ], [ %i1, %head ]
  %s = phi i32 [ 0, %entry ], [ %s1, %head ]
  %q = getelementptr i32, ptr %p, i32 %i
  %v = load i32, ptr %q
  %s1 = add i32 %s, %v
  %i1 = add i32 %i, 1
  %c = icmp slt i32 %i1, %n
  br i1 %c, label %head, label %out
out:
  call void @ext(i32 %s1)
  ret i32 %s1
}
attributes #0 = { noinline optnone }
