; The markers survive LLVM's default<O2> and default<O3> pipelines: the call
; may write memory no IR can see, so it is never dead, and `convergent` keeps
; it from being moved into or out of control flow (loop rotation, which would
; duplicate the header, and if-conversion leave such blocks alone). Code that
; does not touch that memory may move across a marker, so after optimisation
; a marker need not be first in its block. Checked on the figure-3 shape as a
; CUDA kernel whose branches depend on the thread id.
; RUN: %simt-opt -passes='simt-converge,default<O2>' -S %s | FileCheck %s
; RUN: %simt-opt -passes='simt-converge,default<O3>' -S %s | FileCheck %s
; RUN: %simt-opt -passes='simt-converge,default<O2>' -S %s | %opt -passes=verify -disable-output
; RUN: %simt-opt -passes='simt-converge<divergent-only>,default<O2>' -S %s | FileCheck %s --check-prefix=DIV

target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

; CHECK-LABEL: define ptx_kernel void @figure3(
; CHECK-DAG:   call void @simt.converge(i32 1)
; CHECK-DAG:   call void @simt.converge(i32 4)
; CHECK-DAG:   call void @simt.converge(i32 5)
; CHECK-DAG:   call void @simt.converge(i32 6)
; CHECK:       ret void
; CHECK-NEXT:  }
; Here every marker is where threads diverge (the loop's exits depend on the
; thread id), so divergent-only keeps all four.
; DIV-LABEL: define ptx_kernel void @figure3(
; DIV-COUNT-4: call void @simt.converge
; DIV:         ret void
define ptx_kernel void @figure3(ptr %p, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  br label %bb0
bb0:
  %i = phi i32 [ 0, %entry ], [ %i1, %bb4 ]
  %c0 = icmp slt i32 %i, %tid
  br i1 %c0, label %bb1, label %bb5
bb1:
  %a = and i32 %i, %tid
  %c1 = icmp eq i32 %a, 0
  br i1 %c1, label %bb2, label %bb3
bb2:
  %g = getelementptr i32, ptr %p, i32 %i
  store i32 1, ptr %g
  br label %bb4
bb3:
  %c3 = icmp sgt i32 %i, %n
  br i1 %c3, label %bb4, label %bb5
bb4:
  %i1 = add i32 %i, 1
  br label %bb0
bb5:
  ret void
}

; Without markers O2 turns this diamond into a select; with them the branch
; stays and so do both markers (the side laid out second, and the join).
; CHECK-LABEL: define ptx_kernel void @diamond(
; CHECK:         br i1
; CHECK:         call void @simt.converge(i32 2)
; CHECK:         call void @simt.converge(i32 3)
; CHECK:         ret void
; Only the join is kept where threads diverge.
; DIV-LABEL: define ptx_kernel void @diamond(
; DIV-NOT:     call void @simt.converge(i32 2)
; DIV:         call void @simt.converge(i32 3)
; DIV-NOT:     call void @simt.converge(i32 2)
; DIV:         ret void
define ptx_kernel void @diamond(ptr %p) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %c = icmp ult i32 %tid, 16
  br i1 %c, label %a, label %b
a:
  store i32 1, ptr %p
  br label %join
b:
  store i32 2, ptr %p
  br label %join
join:
  %v = phi i32 [ 1, %a ], [ 2, %b ]
  %q = getelementptr i32, ptr %p, i32 %tid
  store i32 %v, ptr %q
  ret void
}

; CHECK: declare void @simt.converge(i32) {{.*}}#[[ATTR:[0-9]+]]
; CHECK: attributes #[[ATTR]] = { convergent {{.*}}memory(inaccessiblemem: readwrite) }
