; A barrier in a loop: the region after the barrier can stop at the barrier
; again (next iteration) or at the kernel's exit. The loop's branch is
; uniform (no divergent branch controls the barrier or the return), so every
; work-item stops where the last one did: the region's work-item loop carries
; no min/max state reductions and there is no agreement check; the state
; phi of its x latch goes to the dispatcher. (A divergent loop keeps both:
; corpus-shapes.test, VARY.) The loop counter %i is
; uniform and live across the barrier: one per-work-group slot (an alloca of
; simt_wg_k, which SROA makes a register),
; read once before the region's work-item loop (%uniform) and written by each
; work-item after the header's phi (the same value). Its only use that needs
; the slot is the latch's `add`, after the barrier; %i.next is used only where
; its own definition reached without a barrier, so it keeps its SSA value and
; no work-item context is left at all (scratch 0 bytes per item).
; RUN: %simt-opt -passes=simt-wiloops -S %s 2>&1 | FileCheck %s
; RUN: %simt-opt -passes=simt-wiloops -S %s 2>&1 | FileCheck %s --check-prefix=GLOBALS
; RUN: %simt-opt -passes=simt-wiloops -S %s 2>&1 | FileCheck %s --check-prefix=SLOT
; RUN: %simt-opt -passes='print<simt-uniformity>' -disable-output %s 2>&1 | FileCheck %s --check-prefix=UNI

; SLOT: @simt_wg_k_scratch_per_item = constant i64 0
; SLOT-LABEL: define i32 @simt_wg_k(
; SLOT: %[[SLOT:private.wg[0-9]*]] = alloca [4 x i8], align 4
; SLOT: r1.pre:
; SLOT-NEXT: %[[I:uniform[0-9]*]] = load i32, ptr %[[SLOT]]
; SLOT: store i32 %{{[0-9]+}}, ptr %[[SLOT]]
; SLOT: %i.next = add i32 %[[I]], 1
; SLOT-NEXT: %more = icmp slt i32 %i.next, %arg1
; SLOT: store i32 %i.next, ptr addrspace(1) %p
; CHECK: %next = phi i32 [ 0, %entry ], [ 1, %r0.done ], [ %[[ST:state[0-9]*]], %r1.done ]
; CHECK: r1.x:
; CHECK-NOT: state.min
; CHECK: r1.x.next:
; CHECK-NEXT: %[[ST]] = phi i32 [ 1, %r1.stop1 ], [ 2, %r1.stop2 ]
; CHECK-NOT: state.min
; CHECK: r1.done:
; CHECK-NEXT: br label %dispatch
; CHECK-NOT: divergent
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
