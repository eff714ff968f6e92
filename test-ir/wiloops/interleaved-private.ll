; Private arrays live across a barrier, with the work-item index innermost
; where every index is uniform and every access is outside the kernel's
; barrier-free loops (innermost.rs, pocl's context arrays): with 8
; work-items, element e of work-item w of %c ([4 x float]) is at
; base + (e*8 + w)*4, so its element 0 is base + w*4 and element e is 32*e
; bytes further; the memset that zeroes it becomes one i32 store per
; element, and the memcpy to the buffer one load and store per element,
; stepping 32 bytes on the private side and 4 on the buffer's. %d is indexed
; by lid & 3 (divergent) and %e is stored by a barrier-free loop: both keep
; their 16 whole bytes per work-item (w*16). Without the interleaving, %c's
; copies are 16 bytes apart (w*16) and the memset and memcpy stay calls.
; Each access carries the scratch scope (innermost.rs's neighbour
; scopes.rs); the buffer's side of the copy is declared apart from it.
; RUN: %simt-opt -passes='simt-wiloops<local-size=8,1,1>' -S %s | FileCheck %s
; RUN: %simt-opt -passes='simt-wiloops<local-size=8,1,1>,default<O2>' -disable-output %s
; RUN: %simt-opt -passes='simt-wiloops' -disable-output %s
; CHECK: @simt_wg_k_scratch_per_item = constant i64 48
; CHECK-LABEL: r0.item:
; CHECK: %[[W4:[0-9]+]] = mul nuw i64 %wi.linear, 4
; CHECK-NEXT: %[[C:private[0-9]*]] = getelementptr inbounds i8, ptr %{{[0-9]+}}, i64 %[[W4]]
; CHECK-NEXT: %[[W16:[0-9]+]] = mul nuw i64 %wi.linear, 16
; CHECK-NEXT: %[[D:private[0-9]*]] = getelementptr inbounds i8, ptr %{{[0-9]+}}, i64 %[[W16]]
; CHECK-NEXT: %[[W16E:[0-9]+]] = mul nuw i64 %wi.linear, 16
; CHECK-NEXT: %[[E:private[0-9]*]] = getelementptr inbounds i8, ptr %{{[0-9]+}}, i64 %[[W16E]]
; CHECK-LABEL: r0.body:
; CHECK-NOT: memset
; CHECK: %[[Z0:[0-9]+]] = getelementptr inbounds i8, ptr %[[C]], i64 0
; CHECK-NEXT: store i32 0, ptr %[[Z0]], align 4, !alias.scope [[SCRATCH:![0-9]+]], !noalias [[UNIFORM:![0-9]+]], !llvm.access.group
; CHECK-NEXT: %[[Z1:[0-9]+]] = getelementptr inbounds i8, ptr %[[C]], i64 32
; CHECK-NEXT: store i32 0, ptr %[[Z1]], align 4, !alias.scope [[SCRATCH]], !noalias [[UNIFORM]], !llvm.access.group
; CHECK: %ds = getelementptr [4 x i32], ptr %[[D]], i64 0, i64 %sel
; CHECK: %v = load float, ptr addrspace(1) %arg1, align 4, !noalias [[BOTH:![0-9]+]], !llvm.access.group
; Element 1 (byte 4) of %c: 32 bytes on.
; CHECK-NEXT: %c1 = getelementptr i8, ptr %[[C]], i64 32
; CHECK-NEXT: store float %v, ptr %c1, align 4
; CHECK: %ej = getelementptr [4 x float], ptr %[[E]], i64 0, i64 %{{[0-9]+}}
; CHECK-LABEL: r1.body:
; Element 2 (byte 8): 64 bytes on.
; CHECK-NEXT: %c2 = getelementptr i8, ptr %[[C1:private[0-9]*]], i64 64
; CHECK-NOT: memcpy
; CHECK: %e3 = getelementptr [4 x float], ptr %{{private[0-9]*}}, i64 0, i64 3
; CHECK: %[[S1:[0-9]+]] = getelementptr inbounds i8, ptr %[[C1]], i64 32
; CHECK-NEXT: %[[V1:[0-9]+]] = load i32, ptr %[[S1]], align 4, !alias.scope [[SCRATCH]], !noalias [[UNIFORM]]
; CHECK-NEXT: %[[T1:[0-9]+]] = getelementptr inbounds i8, ptr addrspace(1) %po, i64 4
; CHECK-NEXT: store i32 %[[V1]], ptr addrspace(1) %[[T1]], align 1, !noalias [[BOTH]]
; The scopes: scratch and uniform, one domain.
; CHECK: [[SCRATCH]] = !{[[SCR:![0-9]+]]}
; CHECK: [[SCR]] = distinct !{[[SCR]], [[DOM:![0-9]+]], !"scratch"}
; CHECK: [[DOM]] = distinct !{[[DOM]], !"simt-wiloops slots"}
; CHECK: [[UNIFORM]] = !{[[UNI:![0-9]+]]}
; CHECK: [[UNI]] = distinct !{[[UNI]], [[DOM]], !"uniform"}
; CHECK: [[BOTH]] = !{[[SCR]], [[UNI]]}
target triple = "spir64"

define spir_kernel void @k(ptr addrspace(1) %out, ptr addrspace(1) %in) {
entry:
  %c = alloca [4 x float], align 4
  %d = alloca [4 x i32], align 4
  %e = alloca [4 x float], align 4
  call void @llvm.memset.p0.i64(ptr align 4 %c, i8 0, i64 16, i1 false)
  %lid = call i64 @_Z12get_local_idj(i32 0)
  %sel = and i64 %lid, 3
  %ds = getelementptr [4 x i32], ptr %d, i64 0, i64 %sel
  store i32 7, ptr %ds
  %v = load float, ptr addrspace(1) %in
  %c1 = getelementptr [4 x float], ptr %c, i64 0, i64 1
  store float %v, ptr %c1
  br label %loop
loop:
  %j = phi i64 [ 0, %entry ], [ %j1, %loop ]
  %ej = getelementptr [4 x float], ptr %e, i64 0, i64 %j
  store float %v, ptr %ej
  %j1 = add i64 %j, 1
  %done = icmp eq i64 %j1, 4
  br i1 %done, label %bar, label %loop
bar:
  call void @_Z7barrierj(i32 1)
  %c2 = getelementptr i8, ptr %c, i64 8
  %x = load float, ptr %c2
  %dl = load i32, ptr %d
  %xf = sitofp i32 %dl to float
  %e3 = getelementptr [4 x float], ptr %e, i64 0, i64 3
  %y = load float, ptr %e3
  %s0 = fadd float %x, %xf
  %s = fadd float %s0, %y
  %po = getelementptr [4 x float], ptr addrspace(1) %out, i64 %lid
  call void @llvm.memcpy.p1.p0.i64(ptr addrspace(1) align 4 %po, ptr align 4 %c, i64 16, i1 false)
  %po1 = getelementptr float, ptr addrspace(1) %po, i64 1
  store float %s, ptr addrspace(1) %po1
  ret void
}

declare i64 @_Z12get_local_idj(i32)
declare void @_Z7barrierj(i32)
declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)
declare void @llvm.memcpy.p1.p0.i64(ptr addrspace(1), ptr, i64, i1)
