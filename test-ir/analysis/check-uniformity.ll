; simt-check-uniformity: a check after each value called uniform (phis at the
; first insertion point), and before each uniform instruction a check of its
; operands from other blocks: %s, uniform in the loop, is checked again where
; the uniform store after the loop reads it (were the exit divergent, lanes
; leaving in different iterations would meet there: temporal divergence).
; Divergent values (%tid, %t) get no check; the table names function, value
; and use. <assume-uniform> checks everything.
; RUN: %simt-opt -passes=simt-check-uniformity -S %s | FileCheck %s
; RUN: %simt-opt -passes='simt-check-uniformity<assume-uniform>' -S %s | FileCheck %s --check-prefix=ALL

target triple = "nvptx64-nvidia-cuda"

; CHECK-LABEL: define ptx_kernel void @loop(
; CHECK:       loop:
; CHECK-NEXT:    %i = phi i32
; CHECK-NEXT:    %s = phi i32
; CHECK-NEXT:    call void @simt.check.uniform.i32(i32 %i, i32 [[I:[0-9]+]])
; CHECK-NEXT:    call void @simt.check.uniform.i32(i32 %s, i32 [[S:[0-9]+]])
; CHECK-NEXT:    %s.next = add i32 %s, %i
; CHECK-NEXT:    call void @simt.check.uniform.i32(i32 %s.next, i32
; CHECK-NEXT:    %i.next = add i32 %i, 1
; CHECK-NEXT:    call void @simt.check.uniform.i32(i32 %i.next, i32
; CHECK-NEXT:    call void @simt.check.uniform.i32(i32 %n, i32
; CHECK-NEXT:    %c = icmp ult i32 %i.next, %n
; CHECK-NEXT:    call void @simt.check.uniform.i1(i1 %c, i32
; CHECK-NEXT:    br i1 %c
; CHECK:       exit:
; CHECK-NEXT:    %t = add i32 %tid, %s
; CHECK-NEXT:    call void @simt.check.uniform.i32(i32 %s, i32
; CHECK-NEXT:    call void @simt.check.uniform.p1(ptr addrspace(1) %out, i32
; CHECK-NEXT:    store i32 %s, ptr addrspace(1) %out
; CHECK: !simt.uniformity.checks = !{
; CHECK-DAG: !{!"loop", !"%s = phi i32 [ 0, %entry ], [ %s.next, %loop ]", !"store i32 %s, ptr addrspace(1) %out, align 4"}

; ALL:       %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
; ALL-NEXT:  call void @simt.check.uniform.i32(i32 %tid, i32
; ALL:       %t = add i32 %tid, %s
; ALL-NEXT:  call void @simt.check.uniform.i32(i32 %t, i32
define ptx_kernel void @loop(ptr addrspace(1) %out, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %s = phi i32 [ 0, %entry ], [ %s.next, %loop ]
  %s.next = add i32 %s, %i
  %i.next = add i32 %i, 1
  %c = icmp ult i32 %i.next, %n
  br i1 %c, label %loop, label %exit
exit:
  %t = add i32 %tid, %s
  store i32 %s, ptr addrspace(1) %out
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
