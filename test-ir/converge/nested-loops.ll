; Nested loops: each header joins the way in and its back edge; each loop's
; exiting blocks are marked, including a break that leaves both loops.
; RUN: %simt-opt -passes='print<simt-convergence>' -disable-output %s 2>&1 | FileCheck %s
; RUN: %simt-opt -passes='print<simt-loops>' -disable-output %s 2>&1 | FileCheck %s --check-prefix=LOOPS
; RUN: %simt-opt -passes='simt-converge<intrinsics>' -S %s | FileCheck %s --check-prefix=TOK
; RUN: %simt-opt -passes='simt-converge<intrinsics>' -S %s | %opt -passes=verify -disable-output

; LOOPS:      Loop at depth 1 containing: %outer<header>,%inner,%body<exiting>,%outer.latch<latch><exiting>
; LOOPS-NEXT:   exits: %exit
; LOOPS-NEXT:   Loop at depth 2 containing: %inner<header><exiting>,%body<latch><exiting>
; LOOPS-NEXT:     exits: %outer.latch, %exit

; %inner leaves the inner loop, %body leaves both (the break), %outer.latch
; leaves the outer one. %exit joins the break and the normal exit. Where
; threads can diverge, %outer is no meeting point: threads come back to it
; only through %outer.latch, where they met already.
; CHECK-LABEL: simt-convergence for function 'nested':
; CHECK-NEXT:    walk: %entry, %outer, %inner, %body, %outer.latch, %exit
; CHECK-NEXT:    marker %outer (block 1): back-edge
; CHECK-NEXT:    marker %inner (block 2): loop-exit, back-edge
; CHECK-NEXT:    marker %body (block 3): loop-exit
; CHECK-NEXT:    marker %outer.latch (block 4): behind, loop-exit
; CHECK-NEXT:    marker %exit (block 5): behind, merge
; CHECK-NEXT:    markers: 5 all, 4 divergent-only
; CHECK-NEXT:    divergent-only: %inner, %body, %outer.latch, %exit
define void @nested(ptr %p, i32 %n, i32 %m) {
entry:
  br label %outer
outer:
  %i = phi i32 [ 0, %entry ], [ %i1, %outer.latch ]
  br label %inner
inner:
  %j = phi i32 [ 0, %outer ], [ %j1, %body ]
  %cj = icmp slt i32 %j, %m
  br i1 %cj, label %body, label %outer.latch
body:
  %q = getelementptr i32, ptr %p, i32 %j
  %v = load i32, ptr %q
  %j1 = add i32 %j, 1
  %stop = icmp eq i32 %v, 0
  br i1 %stop, label %exit, label %inner
outer.latch:
  %i1 = add i32 %i, 1
  %ci = icmp slt i32 %i1, %n
  br i1 %ci, label %outer, label %exit
exit:
  ret void
}

; Every marker takes the token of its innermost loop, whose heart takes the
; enclosing loop's; the function is not convergent, so the root is an anchor.
; TOK-LABEL: define void @nested(
; TOK-NEXT:  entry:
; TOK-NEXT:    [[ROOT:%.*]] = call token @llvm.experimental.convergence.anchor()
; TOK:       outer:
; TOK-NEXT:    %i = phi
; TOK-NEXT:    [[OUTER:%.*]] = call token @llvm.experimental.convergence.loop() [ "convergencectrl"(token [[ROOT]]) ]
; TOK-NEXT:    call void @simt.converge(i32 1) [ "convergencectrl"(token [[OUTER]]) ]
; TOK:       inner:
; TOK-NEXT:    %j = phi
; TOK-NEXT:    [[INNER:%.*]] = call token @llvm.experimental.convergence.loop() [ "convergencectrl"(token [[OUTER]]) ]
; TOK-NEXT:    call void @simt.converge(i32 2) [ "convergencectrl"(token [[INNER]]) ]
; TOK:       body:
; TOK-NEXT:    call void @simt.converge(i32 3) [ "convergencectrl"(token [[INNER]]) ]
; TOK:       outer.latch:
; TOK-NEXT:    call void @simt.converge(i32 4) [ "convergencectrl"(token [[OUTER]]) ]
; TOK:       exit:
; TOK-NEXT:    call void @simt.converge(i32 5) [ "convergencectrl"(token [[ROOT]]) ]
