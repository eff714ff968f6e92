; Irreducible cycles: no header dominates them, the walk can enter them at
; any entry. An edge between two blocks of the cycle whose target was already
; popped closes it: the target is marked (back-edge), and so is every block of
; the cycle with an edge leaving it (loop-exit) and every block such an edge
; leads to (exit-target: threads that leave in different iterations meet
; there, as after a natural loop). Checked by hand.
; RUN: %simt-opt -passes='print<simt-convergence>' -disable-output %s 2>&1 | FileCheck %s
; RUN: %simt-opt -passes='simt-converge' -S %s | %opt -passes=verify -disable-output
; RUN: %simt-opt -passes='simt-converge<intrinsics>' -S %s | FileCheck %s --check-prefix=TOK
; RUN: %simt-opt -passes='simt-converge<intrinsics>' -S %s | %opt -passes=verify -disable-output

;   entry -> a, b;  a <-> b;  a -> out1;  b -> out2
; CHECK-LABEL: simt-convergence for function 'two_entries':
; CHECK-NEXT:    walk: %entry, %a, %b, %out1, %out2
; CHECK-NEXT:    marker %a (block 1): loop-exit, back-edge{{$}}
; CHECK-NEXT:    marker %b (block 2): behind, merge, loop-exit{{$}}
; CHECK-NEXT:    marker %out1 (block 3): behind, exit-target{{$}}
; CHECK-NEXT:    marker %out2 (block 4): behind, exit-target{{$}}
define void @two_entries(i1 %c, i1 %d, i1 %e) {
entry:
  br i1 %c, label %a, label %b
a:
  br i1 %e, label %b, label %out1
b:
  br i1 %d, label %a, label %out2
out1:
  ret void
out2:
  ret void
}

; A ring a -> b -> c -> a entered at a and at c; only c leaves it, to exit.
; b has one incoming edge and leaves nothing: no marker.
; CHECK-LABEL: simt-convergence for function 'ring':
; CHECK-NEXT:    walk: %entry, %a, %b, %c, %exit
; CHECK-NEXT:    marker %a (block 1): back-edge{{$}}
; CHECK-NEXT:    marker %c (block 3): behind, merge, loop-exit{{$}}
; CHECK-NEXT:    marker %exit (block 4): exit-target{{$}}
; CHECK-NEXT:    markers: 3 all
define void @ring(i1 %x, i1 %y) {
entry:
  br i1 %x, label %a, label %c
a:
  br label %b
b:
  br label %c
c:
  br i1 %y, label %a, label %exit
exit:
  ret void
}

; A natural loop around an irreducible cycle: the loop's heart is placed at
; %head, the cycle's blocks take anchors.
; CHECK-LABEL: simt-convergence for function 'inside_loop':
; CHECK-NEXT:    walk: %entry, %head, %p, %q, %latch, %exit
; CHECK-NEXT:    marker %head (block 1): back-edge{{$}}
; CHECK-NEXT:    marker %p (block 2): loop-exit, back-edge{{$}}
; CHECK-NEXT:    marker %q (block 3): behind, merge, loop-exit{{$}}
; CHECK-NEXT:    marker %latch (block 4): behind, merge, loop-exit, exit-target{{$}}
; CHECK-NEXT:    marker %exit (block 5): exit-target{{$}}
define void @inside_loop(i1 %c, i1 %d, i1 %e, i1 %f) {
entry:
  br label %head
head:
  br i1 %c, label %p, label %q
p:
  br i1 %d, label %q, label %latch
q:
  br i1 %e, label %p, label %latch
latch:
  br i1 %f, label %head, label %exit
exit:
  ret void
}

; Blocks of the cycle take anchors; blocks outside take the root, an anchor
; too since the function is not convergent.
; TOK-LABEL: define void @two_entries(
; TOK-NEXT:  entry:
; TOK-NEXT:    [[ROOT:%.*]] = call token @llvm.experimental.convergence.anchor()
; TOK-NEXT:    br i1
; TOK:       a:
; TOK-NEXT:    [[A:%.*]] = call token @llvm.experimental.convergence.anchor()
; TOK-NEXT:    call void @simt.converge(i32 1) [ "convergencectrl"(token [[A]]) ]
; TOK:       b:
; TOK-NEXT:    [[B:%.*]] = call token @llvm.experimental.convergence.anchor()
; TOK-NEXT:    call void @simt.converge(i32 2) [ "convergencectrl"(token [[B]]) ]
; TOK:       out1:
; TOK-NEXT:    call void @simt.converge(i32 3) [ "convergencectrl"(token [[ROOT]]) ]
; TOK-LABEL: define void @inside_loop(
; TOK-NEXT:  entry:
; TOK-NEXT:    [[ROOT:%.*]] = call token @llvm.experimental.convergence.anchor()
; TOK:       head:
; TOK-NEXT:    [[LOOP:%.*]] = call token @llvm.experimental.convergence.loop() [ "convergencectrl"(token [[ROOT]]) ]
; TOK-NEXT:    call void @simt.converge(i32 1) [ "convergencectrl"(token [[LOOP]]) ]
; TOK:       p:
; TOK-NEXT:    [[AP:%.*]] = call token @llvm.experimental.convergence.anchor()
; TOK-NEXT:    call void @simt.converge(i32 2) [ "convergencectrl"(token [[AP]]) ]
; TOK:       latch:
; TOK-NEXT:    call void @simt.converge(i32 4) [ "convergencectrl"(token [[LOOP]]) ]
