; simt-rpo-layout puts blocks in reverse post-order: clang's rotated loop after
; its exit block comes back before it; unreachable blocks go last. Only the
; order changes (the output verifies and the CFG is the same).
; RUN: %simt-opt -passes=simt-rpo-layout -S %s | FileCheck %s
; RUN: %simt-opt -passes='simt-rpo-layout,print<simt-cfg>' -disable-output %s 2>&1 | FileCheck %s --check-prefix=CFG

; CHECK-LABEL: define void @f(
; CHECK:       entry:
; CHECK:       body:
; CHECK:       exit:
; CHECK:       dead:
; CFG: 0 %entry -> [%body, %exit]
; CFG: 1 %body -> [%body, %exit]
; CFG: 2 %exit -> []
; CFG: 3 %dead (unreachable) -> [%exit]
define void @f(i32 %n) {
entry:
  %c = icmp sgt i32 %n, 0
  br i1 %c, label %body, label %exit
exit:
  ret void
dead:
  br label %exit
body:
  %i = phi i32 [ 0, %entry ], [ %i1, %body ]
  %i1 = add i32 %i, 1
  %more = icmp slt i32 %i1, %n
  br i1 %more, label %body, label %exit
}
