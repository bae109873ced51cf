; -ito-yield-variant selects the yield and its calling convention.
; RUN: %opt -load-pass-plugin=%plugin -passes=ito-yield -S %s | %FileCheck %s --check-prefix=MIN
; RUN: %opt -load-pass-plugin=%plugin -passes=ito-yield -ito-yield-variant=abi -S %s \
; RUN:   | %FileCheck %s --check-prefix=ABI
; RUN: %opt -load-pass-plugin=%plugin -passes=ito-yield -ito-yield-variant=full -S %s \
; RUN:   | %FileCheck %s --check-prefix=FULL
; The flag is an external initial-exec TLS int, read volatile.
; MIN: @ito_coop_flag = external thread_local(initialexec) global i32
; MIN: load volatile i32
; MIN: call preserve_nonecc void @ito_coop_yield()
; ABI: call void @ito_coop_yield_abi()
; ABI-NOT: preserve_none
; FULL: call void @ito_coop_yield_full()
; FULL-NOT: preserve_none
define void @f() {
entry:
  ret void
}
