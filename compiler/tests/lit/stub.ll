; The stub variant, the local-exec flag and the probe.
; RUN: %opt -load-pass-plugin=%plugin -passes=ito-yield -ito-yield-variant=stub -S %s \
; RUN:   | %FileCheck %s --check-prefix=STUB
; RUN: %opt -load-pass-plugin=%plugin -passes=ito-yield -ito-yield-variant=stub \
; RUN:   -ito-yield-tls=local-exec -S %s | %FileCheck %s --check-prefix=LE
; RUN: %opt -load-pass-plugin=%plugin -passes=ito-yield -ito-yield-probe -S %s \
; RUN:   | %FileCheck %s --check-prefix=PROBE
; Each site calls its own label, through inline asm that steps over the red zone and
; clobbers nothing the register allocator would have to save (memory and flags only).
; STUB: @ito_coop_flag = external thread_local(initialexec) global i32
; STUB: load volatile i32
; STUB: call void asm sideeffect "lea -128(%rsp), %rsp\0A\09call .Lito_ys_0\0A\09lea 128(%rsp), %rsp", "~{memory},~{dirflag},~{fpsr},~{flags}"()
; STUB: call void asm sideeffect "{{.*}}call .Lito_ys_1{{.*}}", "~{memory},~{dirflag},~{fpsr},~{flags}"()
; STUB-NOT: ito_coop_yield
; Local-exec: a weak zero definition in every module (the executable's interposes libito's).
; LE: @ito_coop_flag = weak dso_local thread_local(localexec) global i32 0
; The probe: no guard, no flag, a call of ito_probe_hit at every point.
; PROBE-NOT: ito_coop_flag
; PROBE: call void asm sideeffect "lea -128(%rsp), %rsp\0A\09call ito_probe_hit@PLT\0A\09lea 128(%rsp), %rsp"
; PROBE-NOT: ito.yield
define i32 @f(i32 %n) {
entry:
  %c = icmp sgt i32 %n, 0
  br i1 %c, label %a, label %b
a:
  ret i32 1
b:
  ret i32 0
}
