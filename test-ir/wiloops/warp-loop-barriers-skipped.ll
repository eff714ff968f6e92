; Loops of warp functions that simt-warp-exchange leaves without loop
; barriers (passes/src/transform/warp_loops.rs), where a lane could leave
; the loop without passing the shuffle in that iteration (@exit_first), or
; come back into it from its exit without passing a barrier (@reentered):
; a barrier there could stop launches that run. @taken and @taken_per_warp
; are the shape that gets them, for contrast: @taken's test is uniform, so
; it gets the exit's barrier only (simt-wiloops-version unswitches on the
; test instead), and @taken_per_warp's trip count differs between warps,
; so it gets the back edge's as well. All run alike on both engines.
; RUN: %simt-opt -passes=simt-warp-exchange -S %s | FileCheck %s
; RUN: rm -rf %t && mkdir -p %t
; RUN: simt-run %s --kernel reentered --global 64 --local 64 --arg buf:i32:64=rand:5 --arg i32:3 --dump %t
; RUN: simt-run %s --kernel reentered --engine emu --check all --global 64 --local 64 --arg buf:i32:64=rand:5 --arg i32:3 --compare %t
; RUN: rm -rf %t && mkdir -p %t
; RUN: simt-run %s --kernel taken --global 64 --local 64 --arg buf:i32:64=rand:5 --arg i32:3 --dump %t
; RUN: simt-run %s --kernel taken --engine emu --check all --global 64 --local 64 --arg buf:i32:64=rand:5 --arg i32:3 --compare %t
; RUN: rm -rf %t && mkdir -p %t
; RUN: simt-run %s --kernel taken_per_warp --global 128 --local 128 --arg buf:i32:128=rand:5 --arg i32:2 --dump %t
; RUN: simt-run %s --kernel taken_per_warp --engine emu --check all --global 128 --local 128 --arg buf:i32:128=rand:5 --arg i32:2 --compare %t

; CHECK-LABEL: define ptx_kernel void @exit_first(
; CHECK-NOT:   warp.loop
; CHECK-LABEL: define ptx_kernel void @reentered(
; CHECK-NOT:   warp.loop
; CHECK-LABEL: define ptx_kernel void @taken(
; CHECK-NOT:   warp.loop.next
; CHECK:       done:
; CHECK-NEXT:    call void @simt.warp.barrier()
; CHECK-LABEL: define ptx_kernel void @taken_per_warp(
; CHECK:       warp.loop.next:
; CHECK-NEXT:    call void @simt.warp.barrier()
; CHECK:       done:
; CHECK-NEXT:    call void @simt.warp.barrier()

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

declare i32 @llvm.nvvm.shfl.sync.bfly.i32(i32, i32, i32, i32)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

; while (k < n) { v += shfl_xor(v, 1); k++ }: the test comes first.
define ptx_kernel void @exit_first(ptr %p, i32 %n) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %a = getelementptr i32, ptr %p, i32 %t
  %v0 = load i32, ptr %a
  br label %head

head:
  %k = phi i32 [ 0, %entry ], [ %k1, %body ]
  %v = phi i32 [ %v0, %entry ], [ %v1, %body ]
  %more = icmp slt i32 %k, %n
  br i1 %more, label %body, label %done

body:
  %s = call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %v, i32 1, i32 31)
  %v1 = add i32 %v, %s
  %k1 = add i32 %k, 1
  br label %head

done:
  store i32 %v, ptr %a
  ret void
}

; for (j = 0; j < 2; j++) for (k = 0; k < n; k++) v += shfl_xor(v, 1):
; the inner loop's exit leads back to its header with no barrier between.
define ptx_kernel void @reentered(ptr %p, i32 %n) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %a = getelementptr i32, ptr %p, i32 %t
  %v0 = load i32, ptr %a
  br label %outer

outer:
  %j = phi i32 [ 0, %entry ], [ %j1, %latch ]
  %vo = phi i32 [ %v0, %entry ], [ %v1, %latch ]
  br label %inner

inner:
  %k = phi i32 [ 0, %outer ], [ %k1, %inner ]
  %v = phi i32 [ %vo, %outer ], [ %v1, %inner ]
  %s = call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %v, i32 1, i32 31)
  %v1 = add i32 %v, %s
  %k1 = add i32 %k, 1
  %again = icmp slt i32 %k1, %n
  br i1 %again, label %inner, label %latch

latch:
  %j1 = add i32 %j, 1
  %more = icmp slt i32 %j1, 2
  br i1 %more, label %outer, label %done

done:
  store i32 %v1, ptr %a
  ret void
}

; do { v += shfl_xor(v, 1); k++ } while (k < n): a barrier on the exit.
define ptx_kernel void @taken(ptr %p, i32 %n) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %a = getelementptr i32, ptr %p, i32 %t
  %v0 = load i32, ptr %a
  br label %loop

loop:
  %k = phi i32 [ 0, %entry ], [ %k1, %loop ]
  %v = phi i32 [ %v0, %entry ], [ %v1, %loop ]
  %s = call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %v, i32 1, i32 31)
  %v1 = add i32 %v, %s
  %k1 = add i32 %k, 1
  %again = icmp slt i32 %k1, %n
  br i1 %again, label %loop, label %done

done:
  store i32 %v1, ptr %a
  ret void
}

; do { v += shfl_xor(v, 1); k++ } while (k < n + threadIdx.x / 32): barriers
; on the back edge and the exit.
define ptx_kernel void @taken_per_warp(ptr %p, i32 %n) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %w = lshr i32 %t, 5
  %lim = add i32 %n, %w
  %a = getelementptr i32, ptr %p, i32 %t
  %v0 = load i32, ptr %a
  br label %loop

loop:
  %k = phi i32 [ 0, %entry ], [ %k1, %loop ]
  %v = phi i32 [ %v0, %entry ], [ %v1, %loop ]
  %s = call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %v, i32 1, i32 31)
  %v1 = add i32 %v, %s
  %k1 = add i32 %k, 1
  %again = icmp slt i32 %k1, %lim
  br i1 %again, label %loop, label %done

done:
  store i32 %v1, ptr %a
  ret void
}
