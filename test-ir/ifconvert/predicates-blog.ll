; print<simt-predicates> on seed 004's example CFG and nested if. The
; expectations come from /work/shared/seeds/004-notes.md, not from our output:
; the blog's facts (§2.3: edge [1,2,true], ipdom(1) = 7, ipdom(2) = 6,
; ipdom(6) = 7, blocks 2 and 6 control dependent on 1) hold on the notes'
; minimal CFG consistent with them (§4, marked INVENTED there), whose full
; ipdom/CD/R/K/Augment K tables the notes compute by hand; and the nested if
; (§2.5, §4) where p2 and p3 must be initialised to false at the start
; (interpretation B: liveness on the linearised code, §3).
; RUN: %simt-opt -passes='print<simt-predicates>' -disable-output %s 2>&1 | FileCheck %s

; Notes §4: 1->2 (T), 1->3 (F), 2->4 (T), 2->5 (F), 4->6, 5->6, 6->7, 3->7.
; CHECK-LABEL: simt-predicates for function 'blog_cfg':
; CHECK-NEXT:    ipdom(%b1) = %b7
; CHECK-NEXT:    ipdom(%b2) = %b6
; CHECK-NEXT:    ipdom(%b3) = %b7
; CHECK-NEXT:    ipdom(%b4) = %b6
; CHECK-NEXT:    ipdom(%b5) = %b6
; CHECK-NEXT:    ipdom(%b6) = %b7
; CHECK-NEXT:    ipdom(%b7) = <exit>
; CD: 1 {}, 2 {1T}, 3 {1F}, 4 {2T}, 5 {2F}, 6 {1T}, 7 {}.
; CHECK-NEXT:    CD(%b1) = <none>
; CHECK-NEXT:    CD(%b2) = [%b1, %b2, true]
; CHECK-NEXT:    CD(%b3) = [%b1, %b3, false]
; CHECK-NEXT:    CD(%b4) = [%b2, %b4, true]
; CHECK-NEXT:    CD(%b5) = [%b2, %b5, false]
; CHECK-NEXT:    CD(%b6) = [%b1, %b2, true]
; CHECK-NEXT:    CD(%b7) = <none>
; R: 1, 7 -> p0 (always true); 2, 6 -> p1 (property 2); 3 -> p2; 4 -> p3; 5 -> p4.
; CHECK-NEXT:    R(%b1) = p0 (true)
; CHECK-NEXT:    R(%b2) = p1
; CHECK-NEXT:    R(%b3) = p2
; CHECK-NEXT:    R(%b4) = p3
; CHECK-NEXT:    R(%b5) = p4
; CHECK-NEXT:    R(%b6) = p1
; CHECK-NEXT:    R(%b7) = p0 (true)
; CHECK-NEXT:    K(p1) = [%b1, %b2, true]
; CHECK-NEXT:    K(p2) = [%b1, %b3, false]
; CHECK-NEXT:    K(p3) = [%b2, %b4, true]
; CHECK-NEXT:    K(p4) = [%b2, %b5, false]
; Interpretation B: p3 and p4 are defined in block 2, guarded by p1.
; CHECK-NEXT:    augment K: p3 = false, p4 = false
define void @blog_cfg(i1 %c1, i1 %c2) {
b1:
  br i1 %c1, label %b2, label %b3
b2:
  br i1 %c2, label %b4, label %b5
b3:
  br label %b7
b4:
  br label %b6
b5:
  br label %b6
b6:
  br label %b7
b7:
  ret void
}

; Notes §4, nested if: B0 -> B1 (T) | B4 (F), B1 -> B2 (T) | B3 (F), B2, B3 -> B4.
; CHECK-LABEL: simt-predicates for function 'nested_if':
; CHECK-NEXT:    ipdom(%B0) = %B4
; CHECK-NEXT:    ipdom(%B1) = %B4
; CHECK-NEXT:    ipdom(%B2) = %B4
; CHECK-NEXT:    ipdom(%B3) = %B4
; CHECK-NEXT:    ipdom(%B4) = <exit>
; CHECK-NEXT:    CD(%B0) = <none>
; CHECK-NEXT:    CD(%B1) = [%B0, %B1, true]
; CHECK-NEXT:    CD(%B2) = [%B1, %B2, true]
; CHECK-NEXT:    CD(%B3) = [%B1, %B3, false]
; CHECK-NEXT:    CD(%B4) = <none>
; CHECK-NEXT:    R(%B0) = p0 (true)
; CHECK-NEXT:    R(%B1) = p1
; CHECK-NEXT:    R(%B2) = p2
; CHECK-NEXT:    R(%B3) = p3
; CHECK-NEXT:    R(%B4) = p0 (true)
; CHECK-NEXT:    K(p1) = [%B0, %B1, true]
; CHECK-NEXT:    K(p2) = [%B1, %B2, true]
; CHECK-NEXT:    K(p3) = [%B1, %B3, false]
; "p2 and p3 are initialised to false at the start node"; p1's define in B0
; always runs.
; CHECK-NEXT:    augment K: p2 = false, p3 = false
define void @nested_if(i1 %c0, i1 %c1) {
B0:
  br i1 %c0, label %B1, label %B4
B1:
  br i1 %c1, label %B2, label %B3
B2:
  br label %B4
B3:
  br label %B4
B4:
  ret void
}

; `a || b`: %then depends on two edges, so its predicate is an OR define
; (several K entries), which reads itself and so starts false.
; CHECK-LABEL: simt-predicates for function 'short_circuit':
; CHECK:         R(%then) = [[P:p[0-9]+]]
; CHECK:         K([[P]]) = [%entry, %then, true], [%rhs, %then, true]
; CHECK:         augment K: {{.*}}[[P]] = false
define void @short_circuit(i1 %a, i1 %b) {
entry:
  br i1 %a, label %then, label %rhs
rhs:
  br i1 %b, label %then, label %end
then:
  br label %end
end:
  ret void
}
