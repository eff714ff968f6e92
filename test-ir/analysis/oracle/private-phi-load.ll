; Shape: a private array written at a divergent index, read at a uniform index through a phi of two allocas after a uniform branch: the load is called uniform.
; RUN: simt-run %s --kernel phi --engine emu --global 16 --local 8 --warp-width 8 --arg buf:i32:16=zero --arg i32:0 --check-uniformity
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @phi(ptr addrspace(1) %out, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %pa = alloca [8 x i32], align 4
  %pb = alloca [8 x i32], align 4
  %i = and i32 %tid, 7
  %q = getelementptr [8 x i32], ptr %pa, i32 0, i32 %i
  store i32 1, ptr %q, align 4
  %c = icmp eq i32 %n, 0
  br i1 %c, label %a, label %b
a:
  br label %join
b:
  br label %join
join:
  %ptr = phi ptr [ %pa, %a ], [ %pb, %b ]
  %g = getelementptr [8 x i32], ptr %ptr, i32 0, i32 3
  %v = load i32, ptr %g, align 4
  %p = getelementptr i32, ptr addrspace(1) %out, i32 %tid
  store i32 %v, ptr addrspace(1) %p
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
