; Partial linearisation (issue 26; Moll & Hack, PLDI 2018): a uniform branch
; inside a divergent region is kept, with the blocks it controls up to its
; post-dominator (an island); the rest of the region is linearised around
; it, and the island's own accesses are guarded by its head's predicate.
; With partial=off such a region stays whole (the behaviour before).
; Expectations follow from that contract: %div* conditions are divergent
; (odd against even lanes), %uni* uniform (kernel arguments, or a load at a
; uniform address).
; RUN: %simt-opt -passes='simt-ifconvert<max-cost=none>' -S %s | FileCheck %s --check-prefixes=CHECK,ON
; RUN: %simt-opt -passes='simt-ifconvert<max-cost=none;partial=off>' -S %s | FileCheck %s --check-prefixes=CHECK,OFF

target triple = "nvptx64-nvidia-cuda"
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

; The uniform branch stays, the divergent one goes; the island's store
; writes through the scratch slot where %div is false; the join's phi
; stays a phi, the region's join a select.
; CHECK-LABEL: define ptx_kernel void @island(
; ON-NOT:      br i1 %div
; ON:          br i1 %uni, label %u1, label %u2
; ON:        u1:
; ON:          %ifc.addr = select i1 %div, ptr %ifc.generic, ptr %ifc.scratch
; ON-NEXT:     store i32 %x, ptr %ifc.addr
; ON:        j:
; ON-NEXT:     %v = phi i32 [ %x, %u1 ], [ %y, %u2 ]
; ON:          select i1 %div, i32 %w, i32 %z
; OFF:         br i1 %div, label %a, label %c
; OFF:         br i1 %uni, label %u1, label %u2
; CHECK:       ret void
define ptx_kernel void @island(ptr addrspace(1) %out, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %tbit = and i32 %tid, 1
  %div = icmp eq i32 %tbit, 0
  %o = getelementptr i32, ptr addrspace(1) %out, i32 %tid
  br i1 %div, label %a, label %c
a:
  %x = mul i32 %tid, 3
  %uni = icmp sgt i32 %n, 3
  br i1 %uni, label %u1, label %u2
u1:
  store i32 %x, ptr addrspace(1) %o, align 4
  br label %j
u2:
  %y = add i32 %x, %n
  br label %j
j:
  %v = phi i32 [ %x, %u1 ], [ %y, %u2 ]
  %w = add i32 %v, 1
  br label %d
c:
  %z = sub i32 %tid, %n
  br label %d
d:
  %r = phi i32 [ %w, %j ], [ %z, %c ]
  %o2 = getelementptr i32, ptr addrspace(1) %o, i32 64
  store i32 %r, ptr addrspace(1) %o2, align 4
  ret void
}

; The uniform condition reads a load the divergent branch guards: a masked
; lane would read its scratch slot and could take the other side, so the
; region stays whole.
; CHECK-LABEL: define ptx_kernel void @guarded_condition(
; CHECK:       br i1 %div, label %a, label %c
; CHECK:       br i1 %uni, label %u1, label %j
define ptx_kernel void @guarded_condition(ptr addrspace(1) %out, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %tbit = and i32 %tid, 1
  %div = icmp eq i32 %tbit, 0
  %o = getelementptr i32, ptr addrspace(1) %out, i32 %tid
  br i1 %div, label %a, label %c
a:
  %ld = load i32, ptr addrspace(1) %out, align 4
  %uni = icmp sgt i32 %ld, 3
  br i1 %uni, label %u1, label %j
u1:
  store i32 %tid, ptr addrspace(1) %o, align 4
  br label %j
j:
  %w = add i32 %n, 1
  br label %d
c:
  br label %d
d:
  %r = phi i32 [ %w, %j ], [ %n, %c ]
  %o2 = getelementptr i32, ptr addrspace(1) %o, i32 64
  store i32 %r, ptr addrspace(1) %o2, align 4
  ret void
}

; A uniform branch whose post-dominator is the region's own join would need
; new phis there: the region stays whole (a limit).
; CHECK-LABEL: define ptx_kernel void @shared_join(
; CHECK:       br i1 %div, label %a, label %d
; CHECK:       br i1 %uni, label %u1, label %d
define ptx_kernel void @shared_join(ptr addrspace(1) %out, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %tbit = and i32 %tid, 1
  %div = icmp eq i32 %tbit, 0
  %o = getelementptr i32, ptr addrspace(1) %out, i32 %tid
  br i1 %div, label %a, label %d
a:
  %uni = icmp sgt i32 %n, 3
  br i1 %uni, label %u1, label %d
u1:
  store i32 %tid, ptr addrspace(1) %o, align 4
  br label %d
d:
  ret void
}
