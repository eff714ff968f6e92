; print<simt-uniformity> on OpenCL C kernels as clang emits them for spir64,
; checked by hand (LLVM has no spir64 target, so its print<uniformity> finds
; everything uniform there and cannot be compared with).
; RUN: %simt-opt -passes='print<simt-uniformity>' -disable-output %s 2>&1 | FileCheck %s

target triple = "spir64"

; Ids: get_local_id and get_global_id differ between work-items of a group;
; get_group_id, get_local_size and get_num_groups do not. A kernel's
; arguments are uniform.
; CHECK-LABEL: simt-uniformity for function 'ids':
; CHECK-NEXT:    kernel: arguments are uniform
; CHECK-NEXT:    DIVERGENT:   %lid = call spir_func i64 @_Z12get_local_idj(i32 0)
; CHECK-NEXT:    DIVERGENT:   %gid = call spir_func i64 @_Z13get_global_idj(i32 0)
; CHECK-NEXT:    DIVERGENT:   %sum = add i64 %lid, %grp
; CHECK-NEXT:    DIVERGENT:   %p1 = getelementptr i64, ptr addrspace(1) %out, i64 %gid
; CHECK-NEXT:    DIVERGENT:   store i64 %sum, ptr addrspace(1) %p1
; CHECK-NEXT:    divergent branches: {{$}}
define spir_kernel void @ids(ptr addrspace(1) %out) {
entry:
  %lid = call spir_func i64 @_Z12get_local_idj(i32 0)
  %gid = call spir_func i64 @_Z13get_global_idj(i32 0)
  %grp = call spir_func i64 @_Z12get_group_idj(i32 0)
  %lsz = call spir_func i64 @_Z14get_local_sizej(i32 0)
  %ngr = call spir_func i64 @_Z14get_num_groupsj(i32 0)
  %sum = add i64 %lid, %grp
  %usum = add i64 %lsz, %ngr
  %p0 = getelementptr i64, ptr addrspace(1) %out, i64 %grp
  store i64 %usum, ptr addrspace(1) %p0
  %p1 = getelementptr i64, ptr addrspace(1) %out, i64 %gid
  store i64 %sum, ptr addrspace(1) %p1
  ret void
}

; if (get_group_id(0) == 0) ... is uniform; if (get_local_id(0) == 0) ... is
; divergent, and its join's phi with it. The barrier is a void call: not a
; source of divergence, and what comes after it is uniform again.
; CHECK-LABEL: simt-uniformity for function 'branches':
; CHECK-NEXT:    kernel: arguments are uniform
; CHECK-NEXT:    DIVERGENT:   %lid = call spir_func i64 @_Z12get_local_idj(i32 0)
; CHECK-NEXT:    DIVERGENT:   %is0 = icmp eq i64 %lid, 0
; CHECK-NEXT:    DIVERGENT:   br i1 %is0, label %first, label %join2
; CHECK-NEXT:    DIVERGENT:   %v2 = phi i32 [ 1, %first ], [ 0, %join1 ]
; CHECK-NEXT:    DIVERGENT:   store i32 %v2, ptr addrspace(1) %out
; CHECK-NEXT:    divergent branches: %join1
; CHECK-NEXT:    join blocks: %join2
; CHECK-NEXT:    loops with divergent exit: {{$}}
define spir_kernel void @branches(ptr addrspace(1) %out) {
entry:
  %lid = call spir_func i64 @_Z12get_local_idj(i32 0)
  %grp = call spir_func i64 @_Z12get_group_idj(i32 0)
  %g0 = icmp eq i64 %grp, 0
  br i1 %g0, label %group0, label %join1
group0:
  br label %join1
join1:
  %v1 = phi i32 [ 1, %group0 ], [ 0, %entry ]
  call spir_func void @_Z7barrierj(i32 1)
  %is0 = icmp eq i64 %lid, 0
  br i1 %is0, label %first, label %join2
first:
  br label %join2
join2:
  %v2 = phi i32 [ 1, %first ], [ 0, %join1 ]
  call spir_func void @_Z7barrierj(i32 1)
  %q = getelementptr i32, ptr addrspace(1) %out, i32 %v1
  store i32 %v2, ptr addrspace(1) %out
  ret void
}

; Other sources: private memory written differently by the work-items (an
; alloca's contents are per work-item: a load is uniform only if every store
; to the object stored a uniform value at a uniform address under uniform
; control), atomics, calls to unknown functions, and a get_local_id whose
; dimension is not a constant (it cannot be classified, so it is an unknown
; call). A load from global memory through a uniform pointer is uniform.
; CHECK-LABEL: simt-uniformity for function 'sources':
; CHECK-NEXT:    kernel: arguments are uniform
; CHECK-NEXT:    DIVERGENT:   %lid = call spir_func i64 @_Z12get_local_idj(i32 0)
; CHECK-NEXT:    DIVERGENT:   store i64 %lid, ptr %slot2
; CHECK-NEXT:    DIVERGENT:   %priv2 = load i64, ptr %slot2
; CHECK-NEXT:    DIVERGENT:   %old = atomicrmw add ptr addrspace(1) %out, i32 1 seq_cst
; CHECK-NEXT:    DIVERGENT:   %ext = call spir_func i32 @opaque(i32 %n)
; CHECK-NEXT:    DIVERGENT:   %dyn = call spir_func i64 @_Z12get_local_idj(i32 %n)
; CHECK-NEXT:    divergent branches: {{$}}
define spir_kernel void @sources(ptr addrspace(1) %out, i32 %n) {
entry:
  %slot = alloca i32
  store i32 %n, ptr %slot
  %priv = load i32, ptr %slot
  %lid = call spir_func i64 @_Z12get_local_idj(i32 0)
  %slot2 = alloca i64
  store i64 %lid, ptr %slot2
  %priv2 = load i64, ptr %slot2
  %glob = load i32, ptr addrspace(1) %out
  %old = atomicrmw add ptr addrspace(1) %out, i32 1 seq_cst
  %ext = call spir_func i32 @opaque(i32 %n)
  %dyn = call spir_func i64 @_Z12get_local_idj(i32 %n)
  ret void
}

; A function that is not a kernel may be called with anything: its
; arguments are divergent, and so is what is computed from them. The group
; id is still uniform.
; CHECK-LABEL: simt-uniformity for function 'helper':
; CHECK-NEXT:    not a kernel: arguments are divergent
; CHECK-NEXT:    DIVERGENT ARGUMENT: %p
; CHECK-NEXT:    DIVERGENT ARGUMENT: %x
; CHECK-NEXT:    DIVERGENT:   %y = mul i32 %x, 2
; CHECK-NEXT:    DIVERGENT:   store i32 %y, ptr addrspace(1) %p
; CHECK-NEXT:    divergent branches: {{$}}
define spir_func void @helper(ptr addrspace(1) %p, i32 %x) {
entry:
  %y = mul i32 %x, 2
  %grp = call spir_func i64 @_Z12get_group_idj(i32 0)
  store i32 %y, ptr addrspace(1) %p
  ret void
}

declare spir_func i64 @_Z12get_local_idj(i32)
declare spir_func i64 @_Z13get_global_idj(i32)
declare spir_func i64 @_Z12get_group_idj(i32)
declare spir_func i64 @_Z14get_local_sizej(i32)
declare spir_func i64 @_Z14get_num_groupsj(i32)
declare spir_func void @_Z7barrierj(i32)
declare spir_func i32 @opaque(i32)
