; A barrier in a loop: the region after the barrier can stop at the barrier
; again (next iteration) or at the kernel's exit, so it carries min/max state
; reductions and checks that all work-items agree; the uniform trip count
; lives in one per-work-group slot in local memory because no region both
; writes and reads it... except the loop counter, which the latch region both
; reads and updates, so it stays per work-item.
; RUN: %simt-opt -passes=simt-wiloops -S %s 2>&1 | FileCheck %s
; RUN: %simt-opt -passes=simt-wiloops -S %s 2>&1 | FileCheck %s --check-prefix=GLOBALS
; RUN: %simt-opt -passes='print<simt-uniformity>' -disable-output %s 2>&1 | FileCheck %s --check-prefix=UNI

; CHECK-LABEL: define i32 @simt_wg_k(
; CHECK: r1.x:
; CHECK: %state.min{{[0-9]*}} = phi i32
; CHECK: r1.x.next:
; CHECK-NEXT: %state{{[0-9]*}} = phi i32 [ 1, %r1.stop1 ], [ 2, %r1.stop2 ]
; CHECK: r1.done:
; CHECK: br i1 {{.*}}, label %r1.agreed, label %r1.divergent
; CHECK: r1.divergent:
; CHECK: store i32 {{.*}}, ptr {{.*}}
; CHECK: ret i32 1
; GLOBALS-DAG: @simt_wg_k_barriers = constant [3 x ptr] [ptr @k.barrier0, ptr @k.barrier1, ptr @k.barrier2]
; GLOBALS-DAG: @k.barrier1 = private unnamed_addr constant [{{[0-9]+}} x i8] c"barrier #1 in block %loop\00"
; UNI-NOT: DIVERGENT: %i.next =
target triple = "spir64"

define spir_kernel void @k(ptr addrspace(1) %out, i32 %n) {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  call void @_Z7barrierj(i32 1)
  %i.next = add i32 %i, 1
  %more = icmp slt i32 %i.next, %n
  br i1 %more, label %loop, label %exit
exit:
  %lid = call i64 @_Z12get_local_idj(i32 0)
  %p = getelementptr i32, ptr addrspace(1) %out, i64 %lid
  store i32 %i.next, ptr addrspace(1) %p
  ret void
}
declare i64 @_Z12get_local_idj(i32)
declare void @_Z7barrierj(i32) convergent
