; Shape: a private array written with a divergent value, read at a uniform index through a uniform select between two allocas: the load is called uniform (only loads through an alloca, a GEP or a cast of one are seen as private).
; RUN: simt-run %s --kernel sel --engine emu --global 16 --local 8 --warp-width 8 --arg buf:i32:16=zero --arg i32:0 --check-uniformity
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @sel(ptr addrspace(1) %out, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %pa = alloca [8 x i32], align 4
  %pb = alloca [8 x i32], align 4
  store i32 %tid, ptr %pa, align 4
  store i32 7, ptr %pb, align 4
  %c = icmp eq i32 %n, 0
  %s = select i1 %c, ptr %pa, ptr %pb
  %v = load i32, ptr %s, align 4
  %p = getelementptr i32, ptr addrspace(1) %out, i32 %tid
  store i32 %v, ptr addrspace(1) %p
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
