; The CFG of seed 003's figure 2 (nodes a..m), as 003-notes.md §3.2
; reconstructs it without the uncertain edges c->c and h->e. The text states
; idom(h) = e, idom(c) = b, idom(l) = a, and that the nodes which are
; immediate dominators of some node are exactly {a, b, e, i}; e strictly
; dominates f, g and h. The notes' computation gives every idom:
; b, d, e, i, l, m -> a; c -> b; f, g, h -> e; j, k -> i.
; RUN: %simt-opt -passes='print<simt-domtree>' -disable-output %s 2>&1 | FileCheck %s

; CHECK-LABEL: simt-domtree for function 'figure2':
; CHECK-NEXT:    idom %a = <root>
; CHECK-NEXT:    idom %b = %a
; CHECK-NEXT:    idom %c = %b
; CHECK-NEXT:    idom %d = %a
; CHECK-NEXT:    idom %e = %a
; CHECK-NEXT:    idom %f = %e
; CHECK-NEXT:    idom %g = %e
; CHECK-NEXT:    idom %h = %e
; CHECK-NEXT:    idom %i = %a
; CHECK-NEXT:    idom %j = %i
; CHECK-NEXT:    idom %k = %i
; CHECK-NEXT:    idom %l = %a
; CHECK-NEXT:    idom %m = %a

define void @figure2(i32 %x, i1 %p) {
a:
  switch i32 %x, label %b [
    i32 1, label %e
    i32 2, label %i
  ]
b:
  br label %c
c:
  br label %d
d:
  br label %m
e:
  br i1 %p, label %f, label %g
f:
  br i1 %p, label %d, label %h
g:
  br i1 %p, label %h, label %l
h:
  br label %m
i:
  br i1 %p, label %j, label %k
j:
  br label %l
k:
  br label %l
l:
  br label %m
m:
  ret void
}
