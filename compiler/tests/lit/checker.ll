; The checker really fails on a mismatch (FileCheck, as run_lit.py calls it).
; RUN: ! %opt -load-pass-plugin=%plugin -passes=ito-yield -S %s | %FileCheck %s --check-prefix=WRONG
; RUN: ! %opt -load-pass-plugin=%plugin -passes=ito-yield -S %s | %FileCheck %s --check-prefix=NOTNOT
; WRONG: call void @ito_coop_yield_full()
; NOTNOT-NOT: ito_coop_yield
define void @f() {
entry:
  ret void
}
