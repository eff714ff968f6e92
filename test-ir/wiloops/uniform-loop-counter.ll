; A uniform loop counter of a barrier loop (scan's `off`): defined by the
; loop header's phi, used in the body before the barrier and by the latch
; after it. Only the latch's use reads a value from before a barrier, so only
; it loads the counter's slot; the body uses the header's SSA value, and,
; since the region after the barrier (latch, header, body) reads the slot
; once before its work-item loop and only writes it after, one slot per
; work-group holds the counter, and with %slot = &tmp[lid] recomputed after
; the barrier, no work-item context is left (16 bytes per work-item when the
; counter and the address had a copy each). Each work-item's element ends as
; 1+2+4+...+32 = 63 on both engines.
; RUN: %simt-opt -passes=simt-wiloops -S %s | FileCheck %s
; RUN: rm -rf %t && mkdir -p %t/host
; RUN: simt-run %s --kernel k --global 128 --local 64 --arg buf:i32:128=zero --arg local:i32:64 --dump %t/host
; RUN: od -An -td4 -v %t/host/arg0.bin | FileCheck %s --check-prefix=OUT
; RUN: simt-run %s --kernel k --engine emu --global 128 --local 64 --arg buf:i32:128=zero --arg local:i32:64 --compare %t/host

; CHECK: @simt_wg_k_scratch_per_item = constant i64 0
; CHECK-LABEL: define i32 @simt_wg_k(
; CHECK: %[[SLOT:private.wg[0-9]*]] = alloca [4 x i8], align 4
; The region from the entry: the header's phi (1) goes to the body as an SSA
; value and to the slot.
; CHECK: r0.body{{[0-9]+}}:
; CHECK-NEXT: %[[ONE:[0-9]+]] = phi i32 [ 1, %r0.body ]
; CHECK-NEXT: store i32 %[[ONE]], ptr %[[SLOT]]
; CHECK: %new = add i32 %old, %[[ONE]]
; The region after the barrier: one load before the work-item loop.
; CHECK: r1.pre:
; CHECK-NEXT: %[[OFF:uniform[0-9]*]] = load i32, ptr %[[SLOT]]
; CHECK-NOT: load i32, ptr %[[SLOT]]
; CHECK: %off.next = shl i32 %[[OFF]], 1
; CHECK-NOT: load i32, ptr %[[SLOT]]
; CHECK: r1.done:
; OUT-COUNT-32: 63 63 63 63
; OUT-NOT: {{[0-9]}}
target triple = "spir64"

define spir_kernel void @k(ptr addrspace(1) %out, ptr addrspace(3) %tmp) {
entry:
  %lid = call i64 @_Z12get_local_idj(i32 0)
  %slot = getelementptr i32, ptr addrspace(3) %tmp, i64 %lid
  store i32 0, ptr addrspace(3) %slot
  br label %loop
loop:
  %off = phi i32 [ 1, %entry ], [ %off.next, %latch ]
  %old = load i32, ptr addrspace(3) %slot
  %new = add i32 %old, %off
  store i32 %new, ptr addrspace(3) %slot
  call void @_Z7barrierj(i32 1)
  br label %latch
latch:
  %off.next = shl i32 %off, 1
  %more = icmp ult i32 %off.next, 64
  br i1 %more, label %loop, label %exit
exit:
  %v = load i32, ptr addrspace(3) %slot
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %p = getelementptr i32, ptr addrspace(1) %out, i64 %gid
  store i32 %v, ptr addrspace(1) %p
  ret void
}
declare i64 @_Z12get_local_idj(i32)
declare i64 @_Z13get_global_idj(i32)
declare void @_Z7barrierj(i32) convergent
