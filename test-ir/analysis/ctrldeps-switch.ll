; Regression test, once a bug (simt function_cfg.rs, FunctionCfg::edge_label): the `case N` label is
; read as operand 2*i of the switch, the pre-LLVM-22 operand layout. In
; LLVM 22 a switch's operands are only the condition, the default and the
; case destinations (the case values are kept apart, see
; SwitchInst::case_values() and the C API's LLVMGetSwitchCaseValue), so the
; label is a basic block read as an integer: garbage such as `case
; 94012914135448`, or a crash (SIGSEGV) once 2*i runs past the operands, as
; it does for @cases below. The expectations are what the switch says.
; RUN: %simt-opt -passes='print<simt-ctrldeps>' -disable-output %s 2>&1 | FileCheck %s

; ipdom(entry) = join; each case block depends on its own edge, named by all
; the switch slots that lead along it: case 0 and case 2 both go to %a.
; CHECK-LABEL: simt-ctrldeps for function 'cases':
; CHECK-NEXT:    %entry: <none>
; CHECK-NEXT:    %a: %entry -> %a (case 0|case 2)
; CHECK-NEXT:    %b: %entry -> %b (case 1)
; CHECK-NEXT:    %neg: %entry -> %neg (case -1)
; CHECK-NEXT:    %def: %entry -> %def (default)
; CHECK-NEXT:    %join: <none>
define void @cases(i32 %x) {
entry:
  switch i32 %x, label %def [
    i32 0, label %a
    i32 1, label %b
    i32 2, label %a
    i32 -1, label %neg
  ]
a:
  br label %join
b:
  br label %join
neg:
  br label %join
def:
  br label %join
join:
  ret void
}

; The default shares its target with a case.
; CHECK-LABEL: simt-ctrldeps for function 'default_and_case':
; CHECK-NEXT:    %entry: <none>
; CHECK-NEXT:    %a: %entry -> %a (default|case 5)
; CHECK-NEXT:    %b: %entry -> %b (case 6)
; CHECK-NEXT:    %join: <none>
define void @default_and_case(i32 %x) {
entry:
  switch i32 %x, label %a [
    i32 5, label %a
    i32 6, label %b
  ]
a:
  br label %join
b:
  br label %join
join:
  ret void
}

; A switch as a loop latch: case 3 goes back to the body. ipdom(latch) = exit,
; ipdom(body) = latch; edge latch->body: body, latch.
; CHECK-LABEL: simt-ctrldeps for function 'switch_latch':
; CHECK-NEXT:    %entry: <none>
; CHECK-NEXT:    %body: %latch -> %body (case 3)
; CHECK-NEXT:    %latch: %latch -> %body (case 3)
; CHECK-NEXT:    %exit: <none>
define void @switch_latch(i32 %x) {
entry:
  br label %body
body:
  br label %latch
latch:
  switch i32 %x, label %exit [
    i32 3, label %body
  ]
exit:
  ret void
}
