; Seed 000 (ARM CN106257412A), figures 3-4: the queue walk puts markers at
; BB0, BB3, BB4 and BB5, and at no other block. IPDOM-based reconvergence
; (the immediate post-dominator of the branch at BB1 is BB5) would never
; re-unite the threads at BB4; the markers do.
;
;          entry
;            |
;     +---> bb0 ------+
;     |      |        |
;     |     bb1       |
;     |    /   \      |
;     |  bb2   bb3 ---+
;     |    \   /      |
;     +--- bb4       bb5 -> ret
;
; In IR the entry block cannot be a loop header, so the figure's BB0 follows
; an entry block and every layout index (the marker's block id) is one more
; than the figure's number.
;
; RUN: %simt-opt -passes='print<simt-convergence>' -disable-output %s 2>&1 | FileCheck %s --check-prefix=WALK
; RUN: %simt-opt -passes='print<simt-postdomtree>' -disable-output %s 2>&1 | FileCheck %s --check-prefix=IPDOM
; RUN: %simt-opt -passes='simt-converge' -S %s | FileCheck %s --check-prefix=IR
; RUN: %simt-opt -passes='simt-converge,simt-converge' -S %s | FileCheck %s --check-prefix=IR
; RUN: %simt-opt -passes='simt-converge' -S %s | %opt -passes=verify -disable-output

; Pops in the order of figure 4B: E, E0, E01, E012, E013, E01{2,3}4, E0{13,}5.
; WALK-LABEL: simt-convergence for function 'figure3':
; WALK-NEXT:    walk: %entry, %bb0, %bb1, %bb2, %bb3, %bb4, %bb5
; WALK-NEXT:    marker %bb0 (block 1): loop-exit, back-edge
; WALK-NEXT:    marker %bb3 (block 4): behind, loop-exit
; WALK-NEXT:    marker %bb4 (block 5): behind, merge
; WALK-NEXT:    marker %bb5 (block 6): behind, merge
; WALK-NEXT:    markers: 4 all, 4 divergent-only

; IPDOM: ipdom %bb1 = %bb5

; IR-LABEL: define void @figure3(
; IR:       entry:
; IR-NOT:     @simt.converge
; IR:       bb0:
; IR-NEXT:    call void @simt.converge(i32 1)
; IR-NEXT:    br i1
; IR:       bb1:
; IR-NOT:     @simt.converge
; IR:       bb2:
; IR-NOT:     @simt.converge
; IR:       bb3:
; IR-NEXT:    call void @simt.converge(i32 4)
; IR-NEXT:    br i1
; IR:       bb4:
; IR-NEXT:    call void @simt.converge(i32 5)
; IR-NEXT:    br label %bb0
; IR:       bb5:
; IR-NEXT:    call void @simt.converge(i32 6)
; IR-NEXT:    ret void
; IR:       declare void @simt.converge(i32) #[[ATTR:[0-9]+]]
; IR:       attributes #[[ATTR]] = { convergent nounwind willreturn memory(inaccessiblemem: readwrite) }
define void @figure3(i1 %c0, i1 %c1, i1 %c3) {
entry:
  br label %bb0
bb0:
  br i1 %c0, label %bb1, label %bb5
bb1:
  br i1 %c1, label %bb2, label %bb3
bb2:
  br label %bb4
bb3:
  br i1 %c3, label %bb4, label %bb5
bb4:
  br label %bb0
bb5:
  ret void
}
