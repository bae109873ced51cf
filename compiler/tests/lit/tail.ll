; A tail call directly before ret stays next to it (musttail must), so the end point
; moves before the call; the verifier (run by opt) would reject a musttail followed by
; anything but ret.
; RUN: %opt -load-pass-plugin=%plugin -passes=ito-yield -ito-yield-place=end -S %s | %FileCheck %s
; CHECK-LABEL: define i32 @f(
; CHECK: ito.cont:
; CHECK-NEXT: %r = musttail call i32 @g(i32 %x)
; CHECK-NEXT: ret i32 %r
; CHECK-LABEL: define i32 @h(
; CHECK: ito.cont:
; CHECK-NEXT: %r = tail call i32 @g(i32 %x)
; CHECK-NEXT: ret i32 %r
declare i32 @g(i32)
define i32 @f(i32 %x) {
entry:
  %r = musttail call i32 @g(i32 %x)
  ret i32 %r
}
define i32 @h(i32 %x) {
entry:
  %r = tail call i32 @g(i32 %x)
  ret i32 %r
}
