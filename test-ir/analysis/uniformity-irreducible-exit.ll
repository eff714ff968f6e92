; Regression test, once a bug (simt uniformity.rs, divergent_branch): temporal divergence is only
; looked for in natural loops (LoopInfo::innermost). An irreducible cycle has
; no natural loop, so when a divergent branch leaves one, the values defined
; in the cycle are not made divergent where they are used after it.
; LLVM's print<uniformity> reports the store below as divergent too.
; Before the fix simt called the stored value uniform.
; RUN: %simt-opt -passes='print<simt-uniformity>' -disable-output %s 2>&1 | FileCheck %s

target triple = "nvptx64-nvidia-cuda"

; The cycle A <-> B is entered at A or B (uniform choice on %n) and left at
; A when a.next >= tid: a thread with tid = 1 leaves with a.next = 1, one
; with tid = 100 goes round many more times. The stored %a.next differs
; between threads. (Inside the cycle all remaining threads agree, so %a,
; %a.next, %b, %b.next are uniform there.)
; CHECK-LABEL: simt-uniformity for function 'irreducible_divergent_exit':
; CHECK:       DIVERGENT:   %ca = icmp slt i32 %a.next, %tid
; CHECK-NEXT:  DIVERGENT:   br i1 %ca, label %B, label %exit
; CHECK-NEXT:  DIVERGENT:   store i32 %a.next, ptr addrspace(1) %out
define ptx_kernel void @irreducible_divergent_exit(ptr addrspace(1) %out, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %c = icmp eq i32 %n, 0
  br i1 %c, label %A, label %B
A:
  %a = phi i32 [ 0, %entry ], [ %b.next, %B ]
  %a.next = add i32 %a, 1
  %ca = icmp slt i32 %a.next, %tid
  br i1 %ca, label %B, label %exit
B:
  %b = phi i32 [ 0, %entry ], [ %a.next, %A ]
  %b.next = add i32 %b, 2
  br label %A
exit:
  store i32 %a.next, ptr addrspace(1) %out
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
