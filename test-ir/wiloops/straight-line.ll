; Two barriers in straight-line code: three regions (entry, after each
; barrier), each with a single exit state, so no run-time agreement check; the
; loaded value live across both barriers is expanded to a per-work-item slot,
; while arithmetic on the work-item id (%w) is recomputed after the barriers.
; RUN: %simt-opt -passes=simt-wiloops -S %s | FileCheck %s
; RUN: %simt-opt -passes=simt-wiloops -S %s | FileCheck %s --check-prefix=GLOBALS
; RUN: %simt-opt -passes='simt-wiloops,default<O2>' -disable-output %s

; CHECK-LABEL: define i32 @simt_wg_k(ptr %0, ptr %1)
; CHECK: dispatch:
; CHECK-NEXT: %next = phi i32 [ 0, %entry ], [ 1, %r0.done ], [ 2, %r1.done ], [ 3, %r2.done ]
; CHECK-NEXT: switch i32 %next, label %finished [
; CHECK-NEXT: i32 0, label %r0.pre
; CHECK-NEXT: i32 1, label %r1.pre
; CHECK-NEXT: i32 2, label %r2.pre
; CHECK: finished:
; CHECK-NEXT: ret i32 0
; CHECK-NOT: state.min
; CHECK: store i64 %v, ptr %private{{[0-9]*}}, align 4, !alias.scope [[SCRATCH:![0-9]+]], !noalias [[UNIFORM:![0-9]+]], !llvm.access.group [[AG:![0-9]+]]
; CHECK: r0.x.next:
; CHECK: br i1 {{.*}}, label %r0.x, label %r0.y.next, !llvm.loop [[LOOP:![0-9]+]]
; CHECK: r2.item:
; CHECK: %{{[0-9]+}} = mul i64 %wi.x{{[0-9]*}}, 3
; CHECK: [[AG]] = distinct !{}
; CHECK: [[LOOP]] = distinct !{[[LOOP]], [[PAR:![0-9]+]], [[PROG:![0-9]+]]}
; CHECK: [[PAR]] = !{!"llvm.loop.parallel_accesses", [[AG]]}
; CHECK: [[PROG]] = !{!"llvm.loop.mustprogress"}
; CHECK-NOT: define {{.*}} @k(
; GLOBALS: @simt_wg_k_scratch_per_item = constant i64 8
; GLOBALS: @simt_wg_k_local_bytes = constant i64 0
; GLOBALS: @simt_wg_k_barriers = constant [4 x ptr] [ptr @k.barrier0, ptr @k.barrier1, ptr @k.barrier2, ptr @k.barrier3]
target triple = "spir64"

define spir_kernel void @k(ptr addrspace(1) %out, ptr addrspace(1) %in) {
entry:
  %lid = call i64 @_Z12get_local_idj(i32 0)
  %pin = getelementptr i64, ptr addrspace(1) %in, i64 %lid
  %v = load i64, ptr addrspace(1) %pin
  %w = mul i64 %lid, 3
  call void @_Z7barrierj(i32 1)
  call void @_Z7barrierj(i32 1)
  %p = getelementptr i64, ptr addrspace(1) %out, i64 %w
  store i64 %v, ptr addrspace(1) %p
  ret void
}
declare i64 @_Z12get_local_idj(i32)
declare void @_Z7barrierj(i32) convergent
