; Divergent and uniform branches in CUDA kernels: simt's print<simt-uniformity>
; must mark exactly the instructions LLVM's print<uniformity> marks for the
; nvptx64 target. Loads go through addrspace(1)/(3) pointers only: LLVM's
; NVPTX TTI calls every load through a generic pointer divergent, simt does not.
; RUN: %opt -passes='print<uniformity>' -disable-output %s 2>&1 | %python %tools/divergent.py > %t.llvm
; RUN: %simt-opt -passes='print<simt-uniformity>' -disable-output %s 2>&1 | %python %tools/divergent.py > %t.simt
; RUN: diff %t.llvm %t.simt
; The verdicts that matter, derived by hand, so that the two tools cannot
; agree on a wrong answer unnoticed:
; RUN: FileCheck %s --input-file=%t.simt

target triple = "nvptx64-nvidia-cuda"

; if (tid < n) p = tid + 1; else p = 2 * n;  -- the branch on tid is
; divergent, %join is where its two sides meet, so both phis there are
; divergent (even %q, whose incoming values are constants).
; CHECK-LABEL: diamond: DIVERGENT:   %tid =
; CHECK-NEXT:  diamond: DIVERGENT:   %c = icmp slt i32 %tid, %n
; CHECK-NEXT:  diamond: DIVERGENT:   br i1 %c
; CHECK-NEXT:  diamond: DIVERGENT:   %a = add i32 %tid, 1
; CHECK-NEXT:  diamond: DIVERGENT:   %p = phi
; CHECK-NEXT:  diamond: DIVERGENT:   %q = phi
; CHECK-NEXT:  diamond: DIVERGENT:   store i32 %p
define ptx_kernel void @diamond(ptr addrspace(1) %out, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %c = icmp slt i32 %tid, %n
  br i1 %c, label %then, label %else
then:
  %a = add i32 %tid, 1
  br label %join
else:
  %b = mul i32 %n, 2
  br label %join
join:
  %p = phi i32 [ %a, %then ], [ %b, %else ]
  %q = phi i32 [ 1, %then ], [ 2, %else ]
  store i32 %p, ptr addrspace(1) %out
  ret void
}

; A branch on a kernel argument is uniform: nothing but the id itself and
; the store of it are divergent; the phi is uniform.
; CHECK-LABEL: uniform_branch: DIVERGENT:   %tid =
; CHECK-NEXT:  uniform_branch: DIVERGENT:   store i32 %tid
; CHECK-NOT:   uniform_branch:
define ptx_kernel void @uniform_branch(ptr addrspace(1) %out, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %c = icmp sgt i32 %n, 0
  br i1 %c, label %then, label %join
then:
  %v = load i32, ptr addrspace(1) %out
  br label %join
join:
  %p = phi i32 [ %v, %then ], [ 0, %entry ]
  store i32 %p, ptr addrspace(1) %out
  %gep = getelementptr i32, ptr addrspace(1) %out, i32 1
  store i32 %tid, ptr addrspace(1) %gep
  ret void
}

; LLVM's hidden_diverge test: the divergent branch in %entry reaches %C
; directly and through %B, so %C's phi is divergent although %B's own branch
; is uniform; %merge is reached from both and its phi is divergent too.
; CHECK-LABEL: hidden: DIVERGENT:   br i1 %cond.var
; CHECK-NOT:   hidden: DIVERGENT:   br i1 %cond.uni
; CHECK:       hidden: DIVERGENT:   %phi.var.hidden = phi
; CHECK-NEXT:  hidden: DIVERGENT:   %phi.ipd = phi
define ptx_kernel void @hidden(ptr addrspace(1) %out, i32 %n, i32 %a, i32 %b) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %cond.var = icmp slt i32 %tid, 0
  br i1 %cond.var, label %B, label %C
B:
  %cond.uni = icmp slt i32 %n, 0
  br i1 %cond.uni, label %C, label %merge
C:
  %phi.var.hidden = phi i32 [ 1, %entry ], [ 2, %B ]
  br label %merge
merge:
  %phi.ipd = phi i32 [ %a, %B ], [ %b, %C ]
  store i32 %phi.ipd, ptr addrspace(1) %out
  ret void
}

; A uniform diamond nested in one arm of a divergent one: the inner join
; %in.join is reached from one side of the divergent branch only, so its phi
; stays uniform; the outer join's phi is divergent.
; CHECK-LABEL: nested: DIVERGENT:   br i1 %c
; CHECK-NOT:   nested: DIVERGENT:   %inner =
; CHECK:       nested: DIVERGENT:   %outer = phi
define ptx_kernel void @nested(ptr addrspace(1) %out, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %c = icmp eq i32 %tid, 0
  br i1 %c, label %then, label %join
then:
  %u = icmp eq i32 %n, 3
  br i1 %u, label %in.then, label %in.else
in.then:
  br label %in.join
in.else:
  br label %in.join
in.join:
  %inner = phi i32 [ 10, %in.then ], [ 20, %in.else ]
  br label %join
join:
  %outer = phi i32 [ %inner, %in.join ], [ 0, %entry ]
  store i32 %outer, ptr addrspace(1) %out
  ret void
}

; Divergent branch to two returns: no join, so nothing after it is divergent
; except what uses the id. Values loaded from shared memory (addrspace 3)
; through a uniform pointer are uniform.
; CHECK-LABEL: two_returns: DIVERGENT:   %tid =
; CHECK-NEXT:  two_returns: DIVERGENT:   %c =
; CHECK-NEXT:  two_returns: DIVERGENT:   br i1 %c
; CHECK-NOT:   two_returns:
define ptx_kernel void @two_returns(ptr addrspace(1) %out, ptr addrspace(3) %sh) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %c = icmp ult i32 %tid, 32
  br i1 %c, label %a, label %b
a:
  %x = load i32, ptr addrspace(3) %sh
  store i32 %x, ptr addrspace(1) %out
  ret void
b:
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
