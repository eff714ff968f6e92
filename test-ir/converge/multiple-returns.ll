; Several returns: each path item ends at its return; returns share no block,
; so nothing joins and no marker is placed for them. The blocks queued behind
; an earlier path are still marked (the threads waiting there resume at them).
; RUN: %simt-opt -passes='print<simt-convergence>' -disable-output %s 2>&1 | FileCheck %s
; RUN: %simt-opt -passes='simt-converge' -S %s | FileCheck %s --check-prefix=IR

; CHECK-LABEL: simt-convergence for function 'early_returns':
; CHECK-NEXT:    walk: %entry, %neg, %pos, %zero, %more
; CHECK-NEXT:    marker %pos (block 2): behind
; CHECK-NEXT:    marker %more (block 4): behind
; CHECK-NEXT:    markers: 2 all, 0 divergent-only
; CHECK-NEXT:    divergent-only: {{$}}
define i32 @early_returns(i32 %x) {
entry:
  %c = icmp slt i32 %x, 0
  br i1 %c, label %neg, label %pos
neg:
  ret i32 -1
pos:
  %z = icmp eq i32 %x, 0
  br i1 %z, label %zero, label %more
zero:
  ret i32 0
more:
  ret i32 1
}

; A return inside a loop: the loop has two exiting blocks (%head, to the
; early return, and the latch %next), both marked. The two ways out never
; meet: %done has one incoming edge and runs first when it is queued.
; CHECK-LABEL: simt-convergence for function 'return_in_loop':
; CHECK-NEXT:    walk: %entry, %head, %found, %next, %done
; CHECK-NEXT:    marker %head (block 1): loop-exit, back-edge
; CHECK-NEXT:    marker %found (block 2): exit-target
; CHECK-NEXT:    marker %next (block 3): behind, loop-exit
; CHECK-NEXT:    marker %done (block 4): exit-target
; CHECK-NEXT:    markers: 4 all, 4 divergent-only
define i32 @return_in_loop(ptr %p, i32 %n) {
entry:
  br label %head
head:
  %i = phi i32 [ 0, %entry ], [ %i1, %next ]
  %q = getelementptr i32, ptr %p, i32 %i
  %v = load i32, ptr %q
  %hit = icmp eq i32 %v, 0
  br i1 %hit, label %found, label %next
found:
  ret i32 %i
next:
  %i1 = add i32 %i, 1
  %more = icmp slt i32 %i1, %n
  br i1 %more, label %head, label %done
done:
  ret i32 -1
}

; IR-LABEL: define i32 @early_returns(
; IR:       neg:
; IR-NEXT:    ret i32 -1
; IR:       pos:
; IR-NEXT:    call void @simt.converge(i32 2)
; IR:       zero:
; IR-NEXT:    ret i32 0
; IR:       more:
; IR-NEXT:    call void @simt.converge(i32 4)
; IR-NEXT:    ret i32 1
