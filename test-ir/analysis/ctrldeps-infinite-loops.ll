; Regression test, once a bug (simt control_deps.rs): control dependence is computed on the CFG as
; augmented for the post-dominator tree, where each infinite-loop root has an
; extra edge to the virtual exit. That fake edge gives the root's real,
; unconditional successor edge the look of a decision, and blocks come out
; control dependent on an unconditional `br` (printed with the fallback
; label `succ 0`), e.g. `%h: %l -> %h (succ 0)` below. A block with one
; successor decides nothing: only edges out of blocks with two or more real
; successors can be control edges. The expectations are derived by hand.
; RUN: %simt-opt -passes='print<simt-ctrldeps>' -disable-output %s 2>&1 | FileCheck %s

; The loop h -> {a, b} -> l -> h never ends; the root is %l. Only %h branches:
; %a and %b depend on its edges; %h and %l run on every iteration whatever
; happens.
; CHECK-LABEL: simt-ctrldeps for function 'diamond_in_loop':
; CHECK-NEXT:    %entry: <none>
; CHECK-NEXT:    %h: <none>
; CHECK-NEXT:    %a: %h -> %a (true)
; CHECK-NEXT:    %b: %h -> %b (false)
; CHECK-NEXT:    %l: <none>
define void @diamond_in_loop(i1 %c) {
entry:
  br label %h
h:
  br i1 %c, label %a, label %b
a:
  br label %l
b:
  br label %l
l:
  br label %h
}

; %spin loops on itself unconditionally: it depends on the edge into it
; only.
; CHECK-LABEL: simt-ctrldeps for function 'beside_return':
; CHECK-NEXT:    %entry: <none>
; CHECK-NEXT:    %spin: %entry -> %spin (true)
; CHECK-NEXT:    %done: %entry -> %done (false)
define void @beside_return(i1 %c) {
entry:
  br i1 %c, label %spin, label %done
spin:
  br label %spin
done:
  ret void
}

; ipdom(a) = b. Edge a->a (true): %a runs again. %b post-dominates %a and
; then spins unconditionally: no dependence.
; CHECK-LABEL: simt-ctrldeps for function 'into_another_loop':
; CHECK-NEXT:    %entry: <none>
; CHECK-NEXT:    %a: %a -> %a (true)
; CHECK-NEXT:    %b: <none>
define void @into_another_loop(i1 %c) {
entry:
  br label %a
a:
  br i1 %c, label %a, label %b
b:
  br label %b
}

; No branch at all.
; CHECK-LABEL: simt-ctrldeps for function 'no_exit':
; CHECK-NEXT:    %entry: <none>
; CHECK-NEXT:    %header: <none>
; CHECK-NEXT:    %latch: <none>
define void @no_exit() {
entry:
  br label %header
header:
  br label %latch
latch:
  br label %header
}
