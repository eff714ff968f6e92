; Shape: %lanemask.lt, a per-lane bit mask, is called uniform (simt treats every intrinsic call as uniform; LLVM's NVPTX TTI calls it divergent).
; RUN: simt-run %s --kernel lanemask --engine emu --global 16 --local 8 --warp-width 8 --arg buf:i32:16=zero --check-uniformity
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @lanemask(ptr addrspace(1) %out) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %m = call i32 @llvm.nvvm.read.ptx.sreg.lanemask.lt()
  %p = getelementptr i32, ptr addrspace(1) %out, i32 %tid
  store i32 %m, ptr addrspace(1) %p
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.lanemask.lt()
