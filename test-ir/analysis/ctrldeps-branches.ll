; print<simt-ctrldeps> on conditional branches and loops, checked by hand.
; Block b is control dependent on edge x -> y when b post-dominates y but
; does not strictly post-dominate x (Ferrante, Ottenstein, Warren): walk the
; post-dominator tree from y up to, not including, ipdom(x). Labels name the
; branch slot: `true` is the first successor of `br i1`, `false` the second.
; RUN: %simt-opt -passes='print<simt-ctrldeps>' -disable-output %s 2>&1 | FileCheck %s

; ipdom(entry) = join. Edge entry->then: then only; entry->else: else only.
; CHECK-LABEL: simt-ctrldeps for function 'if_else':
; CHECK-NEXT:    %entry: <none>
; CHECK-NEXT:    %then: %entry -> %then (true)
; CHECK-NEXT:    %else: %entry -> %else (false)
; CHECK-NEXT:    %join: <none>
define void @if_else(i1 %c) {
entry:
  br i1 %c, label %then, label %else
then:
  br label %join
else:
  br label %join
join:
  ret void
}

; entry->join: join post-dominates entry, so nothing depends on it.
; CHECK-LABEL: simt-ctrldeps for function 'if_then':
; CHECK-NEXT:    %entry: <none>
; CHECK-NEXT:    %then: %entry -> %then (true)
; CHECK-NEXT:    %join: <none>
define void @if_then(i1 %c) {
entry:
  br i1 %c, label %then, label %join
then:
  br label %join
join:
  ret void
}

; The false edge is the one taken into the block here.
; ipdom(entry) = end, ipdom(outer) = outer.join. Edge entry->outer (false):
; outer, outer.join. Edge outer->inner (true): inner only.
; CHECK-LABEL: simt-ctrldeps for function 'nested_if':
; CHECK-NEXT:    %entry: <none>
; CHECK-NEXT:    %outer: %entry -> %outer (false)
; CHECK-NEXT:    %inner: %outer -> %inner (true)
; CHECK-NEXT:    %outer.join: %entry -> %outer (false)
; CHECK-NEXT:    %end: <none>
define void @nested_if(i1 %a, i1 %b) {
entry:
  br i1 %a, label %end, label %outer
outer:
  br i1 %b, label %inner, label %outer.join
inner:
  br label %outer.join
outer.join:
  br label %end
end:
  ret void
}

; while (c) body;  ipdom(header) = exit, ipdom(body) = header.
; Edge header->body (true): body, then header itself (the header runs again
; because the body ran); the walk stops at ipdom(header) = exit.
; CHECK-LABEL: simt-ctrldeps for function 'while_loop':
; CHECK-NEXT:    %entry: <none>
; CHECK-NEXT:    %header: %header -> %body (true)
; CHECK-NEXT:    %body: %header -> %body (true)
; CHECK-NEXT:    %exit: <none>
define void @while_loop(i1 %c) {
entry:
  br label %header
header:
  br i1 %c, label %body, label %exit
body:
  br label %header
exit:
  ret void
}

; do body; while (c);  Edge latch->body (true): body, latch.
; CHECK-LABEL: simt-ctrldeps for function 'do_while':
; CHECK-NEXT:    %entry: <none>
; CHECK-NEXT:    %body: %latch -> %body (true)
; CHECK-NEXT:    %latch: %latch -> %body (true)
; CHECK-NEXT:    %exit: <none>
define void @do_while(i1 %c) {
entry:
  br label %body
body:
  br label %latch
latch:
  br i1 %c, label %body, label %exit
exit:
  ret void
}

; while (a) { if (b) break; }  ipdom(header) = ipdom(body) = exit,
; ipdom(latch) = header. Edge header->body (true): body. Edge body->latch
; (false): latch, header. Edges to exit decide nothing (exit post-dominates).
; CHECK-LABEL: simt-ctrldeps for function 'loop_with_break':
; CHECK-NEXT:    %entry: <none>
; CHECK-NEXT:    %header: %body -> %latch (false)
; CHECK-NEXT:    %body: %header -> %body (true)
; CHECK-NEXT:    %latch: %body -> %latch (false)
; CHECK-NEXT:    %exit: <none>
define void @loop_with_break(i1 %a, i1 %b) {
entry:
  br label %header
header:
  br i1 %a, label %body, label %exit
body:
  br i1 %b, label %exit, label %latch
latch:
  br label %header
exit:
  ret void
}

; A block controlled by two branches: %both runs if a or b, so it depends on
; entry->check_b (false, a false), check_b->both (true), and entry->both
; (true). Sorted by source block, then target, in layout order.
; ipdom(entry) = ipdom(check_b) = end.
; CHECK-LABEL: simt-ctrldeps for function 'two_controls':
; CHECK-NEXT:    %entry: <none>
; CHECK-NEXT:    %check_b: %entry -> %check_b (false)
; CHECK-NEXT:    %both: %entry -> %both (true), %check_b -> %both (true)
; CHECK-NEXT:    %end: <none>
define void @two_controls(i1 %a, i1 %b) {
entry:
  br i1 %a, label %both, label %check_b
check_b:
  br i1 %b, label %both, label %end
both:
  br label %end
end:
  ret void
}

; Two returns: ipdom(entry) is the virtual exit, so each return block
; depends on its edge.
; CHECK-LABEL: simt-ctrldeps for function 'two_returns':
; CHECK-NEXT:    %entry: <none>
; CHECK-NEXT:    %a: %entry -> %a (true)
; CHECK-NEXT:    %b: %entry -> %b (false)
define void @two_returns(i1 %c) {
entry:
  br i1 %c, label %a, label %b
a:
  ret void
b:
  ret void
}
