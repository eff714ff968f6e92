; Hexagon fuses what the IR spells as two ops (hexagon.toml, [[fuse]]):
; - a float compare whose one use is a select between its two operands is
;   one `sfmin`/`sfmax`: the min-reduction m = a[i] < m ? a[i] : m recurs
;   through one op, RecMII 1, II 1 (llc-22 -march=hexagon emits
;   `r0 = sfmin(r2,r0)` and its MachinePipeliner finds II 1; before the
;   fusion the compare and the select recurred: II 2);
; - an add whose one use is an add is `Rx += add(Rs,Rt)`: the three-term
;   recurrence t = x + y + z + b[i] recurs through two ops, II 2 (llc-22
;   emits `r0 += add(r5,r1)` and reports II 2; before: three adds, II 3).
; Controls: a select that is not a min or max (an equality compare, or
; values other than the compared ones) is not fused and keeps II 2.
; RUN: simt-opt -passes='print<simt-modsched<machine=hexagon>>' -disable-output %s 2>&1 | FileCheck %s
; CHECK-LABEL: function 'fmin_sel'
; CHECK: res-mii=1 rec-mii=1 ii=1 {{.*}} bundler=cyclic
; CHECK-LABEL: function 'rec3'
; CHECK: res-mii=1 rec-mii=2 ii=2 {{.*}} bundler=cyclic
; CHECK-LABEL: function 'fsel_eq'
; CHECK: rec-mii=2 ii=2 {{.*}} bundler=cyclic
; CHECK-LABEL: function 'fsel_other'
; CHECK: rec-mii=2 ii=2 {{.*}} bundler=cyclic

define float @fmin_sel(i32 %n, ptr noalias %a) {
entry:
  br label %body
body:
  %i = phi i32 [ 0, %entry ], [ %i1, %body ]
  %m = phi float [ 0.0, %entry ], [ %m1, %body ]
  %p = getelementptr inbounds float, ptr %a, i32 %i
  %v = load float, ptr %p, align 4
  %c = fcmp olt float %v, %m
  %m1 = select i1 %c, float %v, float %m
  %i1 = add nuw nsw i32 %i, 1
  %done = icmp eq i32 %i1, %n
  br i1 %done, label %exit, label %body
exit:
  ret float %m1
}

define i32 @rec3(i32 %n, i32 %x0, i32 %y0, i32 %z0, ptr noalias %b) {
entry:
  br label %body
body:
  %i = phi i32 [ 0, %entry ], [ %i1, %body ]
  %x = phi i32 [ %x0, %entry ], [ %y, %body ]
  %y = phi i32 [ %y0, %entry ], [ %z, %body ]
  %z = phi i32 [ %z0, %entry ], [ %t, %body ]
  %p = getelementptr inbounds i32, ptr %b, i32 %i
  %v = load i32, ptr %p, align 4
  %s1 = add i32 %y, %z
  %s2 = add i32 %s1, %x
  %t = add i32 %s2, %v
  %i1 = add nuw nsw i32 %i, 1
  %done = icmp eq i32 %i1, %n
  br i1 %done, label %exit, label %body
exit:
  ret i32 %t
}

define float @fsel_eq(i32 %n, ptr noalias %a) {
entry:
  br label %body
body:
  %i = phi i32 [ 0, %entry ], [ %i1, %body ]
  %m = phi float [ 0.0, %entry ], [ %m1, %body ]
  %p = getelementptr inbounds float, ptr %a, i32 %i
  %v = load float, ptr %p, align 4
  %c = fcmp oeq float %v, %m
  %m1 = select i1 %c, float %v, float %m
  %i1 = add nuw nsw i32 %i, 1
  %done = icmp eq i32 %i1, %n
  br i1 %done, label %exit, label %body
exit:
  ret float %m1
}

define float @fsel_other(i32 %n, ptr noalias %a, float %k) {
entry:
  br label %body
body:
  %i = phi i32 [ 0, %entry ], [ %i1, %body ]
  %m = phi float [ 0.0, %entry ], [ %m1, %body ]
  %p = getelementptr inbounds float, ptr %a, i32 %i
  %v = load float, ptr %p, align 4
  %c = fcmp olt float %v, %m
  %m1 = select i1 %c, float %k, float %m
  %i1 = add nuw nsw i32 %i, 1
  %done = icmp eq i32 %i1, %n
  br i1 %done, label %exit, label %body
exit:
  ret float %m1
}
