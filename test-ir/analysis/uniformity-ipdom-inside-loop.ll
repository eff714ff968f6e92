; Regression test, once a bug (simt uniformity.rs, divergent_branch): a divergent branch inside a loop
; is taken to reconverge at its immediate post-dominator whenever that block
; is inside the loop. That is wrong when one successor reaches the loop's
; back edge without passing the post-dominator: those threads start the next
; iteration while the others go on to the post-dominator, and from there
; some may leave the loop. simt then (1) misses that the loop has a
; divergent exit, so values defined in the loop are not made divergent where
; they are used after it, and (2) stops the join search at the
; post-dominator, missing joins that lie after it on the way round the loop.
; LLVM's print<uniformity> gets both right (the expectations below are what
; it reports as well). Before the fix simt called these values uniform.
; RUN: %simt-opt -passes='print<simt-uniformity>' -disable-output %s 2>&1 | FileCheck %s

target triple = "nvptx64-nvidia-cuda"

; do { i++; if (i <= tid) continue; if (u) break; } while (true); out = i;
; %body's branch is divergent; its ipdom %tail is in the loop, but the edge
; %body -> %header bypasses %tail. A thread with tid = 1 reaches %tail with
; i = 1 and (u true) leaves; a thread with tid = 5 leaves with i = 5: the
; store after the loop is divergent (temporal divergence), and the loop has
; a divergent exit.
; CHECK-LABEL: simt-uniformity for function 'exit_in_loop_tail':
; CHECK:       DIVERGENT:   store i32 %i, ptr addrspace(1) %out
; CHECK:       loops with divergent exit: %header
define ptx_kernel void @exit_in_loop_tail(ptr addrspace(1) %out, i1 %u) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  br label %header
header:
  %i = phi i32 [ 0, %entry ], [ %i.next, %body ], [ %i.next, %tail ]
  %i.next = add i32 %i, 1
  br label %body
body:
  %c = icmp ult i32 %i, %tid
  br i1 %c, label %header, label %tail
tail:
  br i1 %u, label %exit, label %header
exit:
  store i32 %i, ptr addrspace(1) %out
  ret void
}

; %body's divergent branch goes to %side and %ipd; ipdom(%body) = %ipd (the
; only way out). Thread A goes %body -> %side -> %join (u1 false) with
; p = 1, thread B goes %body -> %ipd -> %join (u2 false) with p = 2, in the
; same iteration: %join is a join of %body's branch although it comes after
; %ipd on B's path, and %p is divergent.
; CHECK-LABEL: simt-uniformity for function 'join_after_ipdom':
; CHECK:       DIVERGENT:   %p = phi i32 [ 1, %side ], [ 2, %ipd ]
; CHECK:       join blocks: {{.*}}%join
; CHECK:       loops with divergent exit: %header
define ptx_kernel void @join_after_ipdom(ptr addrspace(1) %out, i1 %u1, i1 %u2) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  br label %header
header:
  br label %body
body:
  %c = icmp eq i32 %tid, 0
  br i1 %c, label %side, label %ipd
side:
  br i1 %u1, label %header, label %join
ipd:
  br i1 %u2, label %exit, label %join
join:
  %p = phi i32 [ 1, %side ], [ 2, %ipd ]
  store i32 %p, ptr addrspace(1) %out
  br label %header
exit:
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
