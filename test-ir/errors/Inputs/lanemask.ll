; A CUDA kernel reading a warp lane mask (%lanemask_le): the emulator and the
; GPU run it; the host engine has no warps and says so (RELIABILITY.md).
target triple = "nvptx64-nvidia-cuda"
define ptx_kernel void @k(ptr addrspace(1) %out) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %m = call i32 @llvm.nvvm.read.ptx.sreg.lanemask.le()
  %p = getelementptr i32, ptr addrspace(1) %out, i32 %t
  store i32 %m, ptr addrspace(1) %p
  ret void
}
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.lanemask.le()
