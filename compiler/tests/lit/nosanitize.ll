; The checks' accesses to the runtime's words carry !nosanitize (Insert.cpp, noSan): a
; sanitizer's check of them was given the address computed before a yield (the old
; worker's word), and TSan reported a data race on ito_coop_budget in every run of code
; built with `ito-cc --ito-check=budget -fsanitize=thread` (found by an outside tester,
; 2026-12-05). Flag check, budget in a register, budget in memory.
; RUN: %opt -load-pass-plugin=%plugin -passes=ito-yield -ito-yield-policy=every -S %s \
; RUN:   | %FileCheck %s --check-prefix=FLAG
; RUN: %opt -load-pass-plugin=%plugin -passes=ito-yield -ito-yield-policy=every \
; RUN:   -ito-yield-check=budget -S %s | %FileCheck %s --check-prefix=REG
; RUN: %opt -load-pass-plugin=%plugin -passes=ito-yield -ito-yield-policy=every \
; RUN:   -ito-yield-check=budget -ito-yield-budget-reg=false -S %s | %FileCheck %s --check-prefix=MEM

define i64 @loop(i64 %n) {
entry:
  br label %head
head:
  %i = phi i64 [ 0, %entry ], [ %i1, %head ]
  %i1 = add i64 %i, 1
  %c = icmp ult i64 %i1, %n
  br i1 %c, label %head, label %exit
exit:
  ret i64 %i1
}

; FLAG: load volatile i32, ptr %{{[0-9a-z.]+}}, align 4, !nosanitize !
; FLAG-NOT: volatile i32{{.*}}align 4{{$}}
; REG: load volatile i32, ptr %{{[0-9a-z.]+}}, align 4, !nosanitize !
; REG: store volatile i32 %{{[0-9a-z.]+}}, ptr %{{[0-9a-z.]+}}, align 4, !nosanitize !
; REG-NOT: volatile i32{{.*}}align 4{{$}}
; MEM: load volatile i32, ptr %{{[0-9a-z.]+}}, align 4, !nosanitize !
; MEM: store volatile i32 %{{[0-9a-z.]+}}, ptr %{{[0-9a-z.]+}}, align 4, !nosanitize !
; MEM-NOT: volatile i32{{.*}}align 4{{$}}
