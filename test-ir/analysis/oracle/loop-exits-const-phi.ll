; Shape: a loop with a uniform exit at the header and a divergent break to a second exit block; the two exits meet at %join, whose phi has only constants coming in ("which exit" flag): called uniform, but threads arrive from both exits.
; RUN: simt-run %s --kernel flag --engine emu --global 8 --local 8 --warp-width 8 --arg buf:i32:8=zero --check-uniformity
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @flag(ptr addrspace(1) %out) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %t1 = and i32 %tid, 1
  br label %header
header:
  %i = phi i32 [ 0, %entry ], [ %i1, %latch ]
  %c = icmp slt i32 %i, 3
  br i1 %c, label %body, label %exit0
body:
  %d = icmp eq i32 %t1, 0
  br i1 %d, label %exit1, label %latch
latch:
  %i1 = add i32 %i, 1
  br label %header
exit0:
  br label %join
exit1:
  br label %join
join:
  %f = phi i32 [ 10, %exit0 ], [ 11, %exit1 ]
  %p = getelementptr i32, ptr addrspace(1) %out, i32 %tid
  store i32 %f, ptr addrspace(1) %p
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
