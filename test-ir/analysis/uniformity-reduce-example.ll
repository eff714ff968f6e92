; The shipped OpenCL kernel test-ir/examples/reduce.ll (reduce.cl compiled by
; clang-22 for spir64 at -O1), checked by hand against its source:
;
;   size_t lid = get_local_id(0);                     // %4, divergent
;   size_t gid = get_global_id(0);                    // %5, divergent
;   scratch[lid] = in[gid];                           // %6..%8 + store
;   barrier(CLK_LOCAL_MEM_FENCE);
;   for (size_t s = get_local_size(0) / 2; s > 0; s >>= 1) {  // %9..%11, %15, %23, %24
;     if (lid < s)                                    // %16, block %14
;       scratch[lid] += scratch[lid + s];             // block %17
;     barrier(CLK_LOCAL_MEM_FENCE);                   // block %22, the latch
;   }
;   if (lid == 0)                                     // %13, block %12
;     out[get_group_id(0)] = scratch[0];              // block %25
;
; The reduction loop is uniform: s starts from the uniform local size and is
; halved, so %15, %23, %24 and the latch branch are uniform and no loop has a
; divergent exit. `if (lid < s)` and `if (lid == 0)` are divergent branches;
; they join at %22 (the latch) and %29 (the return). Block %25 reads
; scratch[0] through the uniform kernel argument and writes to
; out[group id]: uniform.
; RUN: %simt-opt -passes='print<simt-uniformity>' -disable-output %examples/reduce.ll 2>&1 | FileCheck %s

; CHECK-LABEL: simt-uniformity for function 'reduce_sum':
; CHECK-NEXT:    kernel: arguments are uniform
; CHECK-NEXT:    DIVERGENT:   %4 = tail call spir_func i64 @_Z12get_local_idj(i32 noundef 0)
; CHECK-NEXT:    DIVERGENT:   %5 = tail call spir_func i64 @_Z13get_global_idj(i32 noundef 0)
; CHECK-NEXT:    DIVERGENT:   %6 = getelementptr inbounds nuw float, ptr addrspace(1) %0, i64 %5
; CHECK-NEXT:    DIVERGENT:   %7 = load float, ptr addrspace(1) %6
; CHECK-NEXT:    DIVERGENT:   %8 = getelementptr inbounds nuw float, ptr addrspace(3) %2, i64 %4
; CHECK-NEXT:    DIVERGENT:   store float %7, ptr addrspace(3) %8
; CHECK-NEXT:    DIVERGENT:   %13 = icmp eq i64 %4, 0
; CHECK-NEXT:    DIVERGENT:   br i1 %13, label %25, label %29
; CHECK-NEXT:    DIVERGENT:   %16 = icmp ult i64 %4, %15
; CHECK-NEXT:    DIVERGENT:   br i1 %16, label %17, label %22
; CHECK-NEXT:    DIVERGENT:   %18 = getelementptr inbounds nuw float, ptr addrspace(3) %8, i64 %15
; CHECK-NEXT:    DIVERGENT:   %19 = load float, ptr addrspace(3) %18
; CHECK-NEXT:    DIVERGENT:   %20 = load float, ptr addrspace(3) %8
; CHECK-NEXT:    DIVERGENT:   %21 = fadd float %19, %20
; CHECK-NEXT:    DIVERGENT:   store float %21, ptr addrspace(3) %8
; CHECK-NEXT:    divergent branches: %12, %14
; CHECK-NEXT:    join blocks: %22, %29
; CHECK-NEXT:    loops with divergent exit: {{$}}

; The same body as a plain spir_func (what clang calls from the kernel): not
; a kernel, so its pointer arguments are divergent and the accesses in %25
; through them become divergent too; the loop is still uniform.
; CHECK-LABEL: simt-uniformity for function '__clang_ocl_kern_imp_reduce_sum':
; CHECK-NEXT:    not a kernel: arguments are divergent
; CHECK-NEXT:    DIVERGENT ARGUMENT: %0
; CHECK-NEXT:    DIVERGENT ARGUMENT: %1
; CHECK-NEXT:    DIVERGENT ARGUMENT: %2
; CHECK-NOT:     DIVERGENT:   %15 = phi
; CHECK-NOT:     DIVERGENT:   %23 =
; CHECK:         DIVERGENT:   %26 = load float, ptr addrspace(3) %2
; CHECK-NEXT:    DIVERGENT:   %28 = getelementptr inbounds nuw float, ptr addrspace(1) %1, i64 %27
; CHECK-NEXT:    DIVERGENT:   store float %26, ptr addrspace(1) %28
; CHECK-NEXT:    divergent branches: %12, %14
; CHECK-NEXT:    join blocks: %22, %29
; CHECK-NEXT:    loops with divergent exit: {{$}}
