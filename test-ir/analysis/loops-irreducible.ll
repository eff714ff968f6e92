; print<simt-loops> reports cycles that are not natural loops, checked by
; hand. A cycle is irreducible when control can enter it at more than one
; block; none of its blocks dominates the others, so LLVM's LoopInfo (and
; simt's natural loops) do not see it. simt lists each such cycle with its
; entry blocks, after the natural loops. Nested cycles are found by removing
; a cycle's entries and looking for cycles among the rest.
; RUN: %simt-opt -passes='print<simt-loops>' -disable-output %s 2>&1 | FileCheck %s

; entry branches to both %a and %b, which branch to each other.
; CHECK-LABEL: simt-loops for function 'two_entries':
; CHECK-NEXT:  Irreducible cycle entered at %a, %b containing: %a, %b
; CHECK-NOT:   {{Loop|Irreducible|exits}}
define void @two_entries(i1 %c, i1 %d) {
entry:
  br i1 %c, label %a, label %b
a:
  br label %b
b:
  br i1 %d, label %a, label %exit
exit:
  ret void
}

; A three-block ring a -> b -> c -> a entered at a and at c.
; CHECK-LABEL: simt-loops for function 'ring':
; CHECK-NEXT:  Irreducible cycle entered at %a, %c containing: %a, %b, %c
; CHECK-NOT:   {{Loop|Irreducible|exits}}
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

; Inside the natural loop headed by %h (latch %y), the cycle x <-> y is
; entered from %h at both %x and %y: a natural loop at depth 1 and an
; irreducible cycle inside it.
; CHECK-LABEL: simt-loops for function 'inside_natural_loop':
; CHECK-NEXT:  Loop at depth 1 containing: %h<header>,%x,%y<latch><exiting>
; CHECK-NEXT:    exits: %exit
; CHECK-NEXT:  Irreducible cycle entered at %x, %y containing: %x, %y
; CHECK-NOT:   {{Loop|Irreducible|exits}}
define void @inside_natural_loop(i1 %a, i1 %b, i1 %c) {
entry:
  br label %h
h:
  br i1 %a, label %x, label %y
x:
  br label %y
y:
  switch i32 0, label %exit [
    i32 1, label %x
    i32 2, label %h
  ]
exit:
  ret void
}

; The irreducible cycle {a, b, c} (entries a and b) contains the self-loop
; at %c: with the entries removed, %c alone is a cycle with one entry, a
; natural loop (c dominates itself and is its own latch).
; CHECK-LABEL: simt-loops for function 'natural_inside_irreducible':
; CHECK-NEXT:  Loop at depth 1 containing: %c<header><latch><exiting>
; CHECK-NEXT:    exits: %a, %exit
; CHECK-NEXT:  Irreducible cycle entered at %a, %b containing: %a, %b, %c
; CHECK-NOT:   {{Loop|Irreducible|exits}}
define void @natural_inside_irreducible(i1 %p, i1 %q, i32 %r) {
entry:
  br i1 %p, label %a, label %b
a:
  br label %b
b:
  br label %c
c:
  switch i32 %r, label %exit [
    i32 0, label %c
    i32 1, label %a
  ]
exit:
  ret void
}

; Two irreducible cycles, one nested in the other: {a, b, c, d} is entered
; at a and b; without them, {c, d} remains a cycle entered at both c (from b)
; and d (from a). (LLVM's print<cycles> nests differently, removing only one
; header per level: entries(b a) c d > entries(c a) d > entries(d a).)
; CHECK-LABEL: simt-loops for function 'nested_irreducible':
; CHECK-NEXT:  Irreducible cycle entered at %a, %b containing: %a, %b, %c, %d
; CHECK-NEXT:  Irreducible cycle entered at %c, %d containing: %c, %d
; CHECK-NOT:   {{Loop|Irreducible|exits}}
define void @nested_irreducible(i1 %p, i32 %r) {
entry:
  br i1 %p, label %a, label %b
a:
  br i1 %p, label %b, label %d
b:
  br label %c
c:
  br label %d
d:
  switch i32 %r, label %exit [
    i32 0, label %c
    i32 1, label %a
  ]
exit:
  ret void
}

; A reducible nest prints no irreducible cycle.
; CHECK-LABEL: simt-loops for function 'reducible':
; CHECK-NEXT:  Loop at depth 1 containing: %outer<header>,%inner,%latch<latch><exiting>
; CHECK-NEXT:    exits: %exit
; CHECK-NEXT:    Loop at depth 2 containing: %inner<header><latch><exiting>
; CHECK-NEXT:      exits: %latch
; CHECK-NOT:   Irreducible
define void @reducible(i1 %a, i1 %b) {
entry:
  br label %outer
outer:
  br label %inner
inner:
  br i1 %a, label %inner, label %latch
latch:
  br i1 %b, label %outer, label %exit
exit:
  ret void
}
