; -ito-yield-place=begin|end overrides the liveness choice (the paper's case study
; always used the beginning).
; RUN: %opt -load-pass-plugin=%plugin -passes=ito-yield -ito-yield-place=begin -S %s \
; RUN:   | %FileCheck %s --check-prefix=BEGIN
; RUN: %opt -load-pass-plugin=%plugin -passes=ito-yield -ito-yield-place=end -S %s \
; RUN:   | %FileCheck %s --check-prefix=END

; BEGIN: entry:
; BEGIN-NEXT: call ptr @llvm.threadlocal.address.p0(ptr @ito_coop_flag)
; END: entry:
; END-NEXT: %x = add i32 %a, %b
; END-NEXT: call ptr @llvm.threadlocal.address.p0(ptr @ito_coop_flag)
; END: ito.cont:
; END-NEXT: ret i32 %x
define i32 @f(i32 %a, i32 %b) {
entry:
  %x = add i32 %a, %b
  ret i32 %x
}
