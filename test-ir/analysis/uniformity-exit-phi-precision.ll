; Regression test, once an imprecision (simt uniformity.rs, divergent_branch): every exit block of a
; loop with a divergent exit is treated as a join block, so every phi there
; with differing incoming values is made divergent. LLVM only makes values
; *defined in the loop* divergent at their uses outside it (temporal
; divergence), plus the phis of real joins. Below, the loop side of %exit's
; phi is the constant 7, and whether threads come from %entry or from the
; loop is decided by a uniform branch: every thread at %exit sees the same
; value, %p is uniform. simt says divergent: sound, but less precise than
; LLVM, which this comparison expects it to match.
; RUN: %opt -passes='print<uniformity>' -disable-output %s 2>&1 | %python %tools/divergent.py > %t.llvm
; RUN: %simt-opt -passes='print<simt-uniformity>' -disable-output %s 2>&1 | %python %tools/divergent.py > %t.simt
; RUN: diff %t.llvm %t.simt
; RUN: FileCheck %s --input-file=%t.simt

target triple = "nvptx64-nvidia-cuda"

; CHECK:      exit_phi_constant: DIVERGENT:   %tid =
; CHECK-NEXT: exit_phi_constant: DIVERGENT:   %c = icmp ult i32 %i.next, %tid
; CHECK-NEXT: exit_phi_constant: DIVERGENT:   br i1 %c
; CHECK-NOT:  exit_phi_constant:
define ptx_kernel void @exit_phi_constant(ptr addrspace(1) %out, i1 %skip) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  br i1 %skip, label %exit, label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %i.next = add i32 %i, 1
  %c = icmp ult i32 %i.next, %tid
  br i1 %c, label %loop, label %exit
exit:
  %p = phi i32 [ 8, %entry ], [ 7, %loop ]
  store i32 %p, ptr addrspace(1) %out
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
