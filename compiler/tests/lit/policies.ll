; Policies: every block; function entry and loop headers; a minimum distance.
; RUN: %opt -load-pass-plugin=%plugin -passes=ito-yield -ito-yield-report -ito-yield-dry-run \
; RUN:   -ito-yield-policy=every -disable-output %s 2>&1 | %FileCheck %s --check-prefix=EVERY
; RUN: %opt -load-pass-plugin=%plugin -passes=ito-yield -ito-yield-report -ito-yield-dry-run \
; RUN:   -ito-yield-policy=loops -disable-output %s 2>&1 | %FileCheck %s --check-prefix=LOOPS
; RUN: %opt -load-pass-plugin=%plugin -passes=ito-yield -ito-yield-report -ito-yield-dry-run \
; RUN:   -ito-yield-policy=distance -ito-yield-distance=6 -disable-output %s 2>&1 \
; RUN:   | %FileCheck %s --check-prefix=DIST
; The dry run changes nothing:
; RUN: %opt -load-pass-plugin=%plugin -passes=ito-yield -ito-yield-dry-run -S %s \
; RUN:   | %FileCheck %s --check-prefix=DRY

; Points are reported in reverse post order.
; EVERY: ito-yield: loop: entry
; EVERY-NEXT: ito-yield: loop: head
; EVERY-NEXT: ito-yield: loop: exit
; EVERY-NEXT: ito-yield: loop: body
; EVERY-NEXT: ito-yield: loop: a1
; EVERY-NEXT: ito-yield: loop: a2
; EVERY-NEXT: ito-yield: loop: a3
; EVERY-NOT: ito-yield

; LOOPS: ito-yield: loop: entry
; LOOPS-NEXT: ito-yield: loop: head
; LOOPS-NOT: ito-yield

; Sizes count non-phi instructions. entry and head (loop header) always; head's point
; is before its compare, 2 instructions to its end; exit 2+1 < 6; body 2+2 = 4; a1 reaches
; 4+2 = 6: point at its beginning (2 after it); a2 2+2 = 4; a3 4+2 = 6: point.
; DIST: ito-yield: loop: entry
; DIST-NEXT: ito-yield: loop: head
; DIST-NEXT: ito-yield: loop: a1
; DIST-NEXT: ito-yield: loop: a3
; DIST-NOT: ito-yield

; DRY-NOT: ito_coop
define i32 @loop(i32 %n) {
entry:
  br label %head
head:
  %i = phi i32 [ 0, %entry ], [ %i1, %a3 ]
  %c = icmp slt i32 %i, %n
  br i1 %c, label %body, label %exit
body:
  %i1 = add i32 %i, 1
  br label %a1
a1:
  %x1 = mul i32 %i1, 3
  br label %a2
a2:
  %x2 = mul i32 %x1, 5
  br label %a3
a3:
  %x3 = mul i32 %x2, 7
  br label %head
exit:
  ret i32 %i
}
