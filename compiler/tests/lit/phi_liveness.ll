; IR liveness: phi results are live at the beginning of their block, their incoming
; values at the end of the predecessors; static allocas are not counted; a value used
; only in a successor is live at both ends of the block in between.
; RUN: %opt -load-pass-plugin=%plugin -passes=ito-yield -ito-yield-report -ito-yield-dry-run \
; RUN:   -disable-output %s 2>&1 | %FileCheck %s
; CHECK: ito-yield: f: entry begin live_begin=2 live_end=3
; CHECK: ito-yield: f: mid end live_begin=3 live_end=2
; CHECK: ito-yield: f: join end live_begin=2 live_end=1
define i32 @f(i32 %a, i32 %b) {
entry:
  %slot = alloca i32
  %s = add i32 %a, %b
  br label %mid
mid:
  store i32 %s, ptr %slot
  br label %join
join:
  %p = phi i32 [ %a, %mid ]
  %q = add i32 %p, %b
  ret i32 %q
}
