; print<simt-cfg> on a switch with duplicate targets, checked by hand: one
; successor per distinct target, in the order the switch first names them
; (default first), and `unreachable` counted as an exit (no successors).
; (Not in cfg-terminators.ll: print<simt-ctrldeps> on switches crashes, see
; ctrldeps-switch.ll.)
; RUN: %simt-opt -passes='print<simt-cfg>' -disable-output %s 2>&1 | FileCheck %s --check-prefix=CFG

; CFG-LABEL: simt-cfg for function 'switch_dups':
; CFG-NEXT:    0 %entry -> [%a, %b]
; CFG-NEXT:    1 %a -> []
; CFG-NEXT:    2 %b -> []
; CFG-NEXT:    rpo: %entry, %b, %a
define void @switch_dups(i32 %x) {
entry:
  switch i32 %x, label %a [
    i32 0, label %b
    i32 1, label %a
    i32 2, label %b
  ]
a:
  ret void
b:
  unreachable
}

