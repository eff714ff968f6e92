; simt-to-nvptx maps OpenCL's work-item functions and barrier onto PTX special
; registers and bar.sync, makes kernels ptx_kernel, and turns a __local pointer
; argument into an i32 offset into dynamic shared memory.
; RUN: %simt-opt -passes=simt-to-nvptx -S %s | FileCheck %s
; RUN: %simt-opt -passes='simt-to-nvptx,default<O2>' -mcpu=sm_70 --filetype=asm %s -o %t.ptx
; RUN: FileCheck %s --check-prefix=PTX < %t.ptx
; RUN: %ptxas -arch=sm_70 %t.ptx -o %t.cubin

; CHECK: target triple = "nvptx64-nvidia-cuda"
; CHECK: @__simt_dynamic_shared = external addrspace(3) global [0 x i8], align 16
; CHECK-LABEL: define ptx_kernel void @k(ptr addrspace(1) %out, i32 %tmp)
; CHECK: %local.arg = getelementptr inbounds i8, ptr addrspace(3) @__simt_dynamic_shared, i32 %tmp
; CHECK: call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
; CHECK: call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
; CHECK: call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
; CHECK: call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
; CHECK-NOT: @_Z
; PTX: .visible .entry k(
; PTX: bar.sync 0;
target triple = "spir64"

define spir_kernel void @k(ptr addrspace(1) %out, ptr addrspace(3) %tmp) {
entry:
  %lid = call spir_func i64 @_Z12get_local_idj(i32 0)
  %gid = call spir_func i64 @_Z13get_global_idj(i32 0)
  %p = getelementptr float, ptr addrspace(3) %tmp, i64 %lid
  store float 1.0, ptr addrspace(3) %p
  call spir_func void @_Z7barrierj(i32 1)
  %v = load float, ptr addrspace(3) %tmp
  %q = getelementptr float, ptr addrspace(1) %out, i64 %gid
  store float %v, ptr addrspace(1) %q
  ret void
}
declare spir_func i64 @_Z12get_local_idj(i32)
declare spir_func i64 @_Z13get_global_idj(i32)
declare spir_func void @_Z7barrierj(i32) convergent
