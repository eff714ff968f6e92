; simt-converge<divergent-only> keeps the markers where threads can actually
; be apart: joins of divergent branches (sync dependence) and the exits of
; loops that threads leave in different iterations. A branch on a kernel
; argument is uniform: all threads take the same side, nothing to reconverge.
; RUN: %simt-opt -passes='print<simt-convergence>' -disable-output %s 2>&1 | FileCheck %s
; RUN: %simt-opt -passes='print<simt-uniformity>' -disable-output %s 2>&1 | FileCheck %s --check-prefix=UNI
; RUN: %simt-opt -passes='simt-converge' -S %s | FileCheck %s --check-prefix=ALL
; RUN: %simt-opt -passes='simt-converge<divergent-only>' -S %s | FileCheck %s --check-prefix=DIV

target triple = "spir64"

declare spir_func i64 @_Z13get_global_idj(i32)

; UNI-LABEL: simt-uniformity for function 'k':
; UNI:         divergent branches: %ujoin, %dloop.pre, %dloop
; UNI-NEXT:    join blocks: %djoin, %dexit
; UNI-NEXT:    loops with divergent exit: %dloop

; The uniform if (%ua/%ub/%ujoin) and the uniform loop (%uloop, trip count
; from an argument) get markers from the walk but not where threads diverge;
; the divergent if joins at %djoin, the divergent loop is left at %dloop.
; Exit targets (%dloop.pre after the uniform loop, %dexit) are where threads
; leaving a loop in different iterations meet; only the divergent loop's
; matters at run time.
; CHECK-LABEL: simt-convergence for function 'k':
; CHECK-NEXT:    walk: %entry, %ua, %ub, %ujoin, %da, %db, %djoin, %uloop, %dloop.pre, %dloop, %dexit
; CHECK-NEXT:    marker %ub (block 2): behind
; CHECK-NEXT:    marker %ujoin (block 3): behind, merge
; CHECK-NEXT:    marker %db (block 5): behind
; CHECK-NEXT:    marker %djoin (block 6): behind, merge
; CHECK-NEXT:    marker %uloop (block 7): loop-exit, back-edge
; CHECK-NEXT:    marker %dloop.pre (block 8): exit-target
; CHECK-NEXT:    marker %dloop (block 9): loop-exit, back-edge
; CHECK-NEXT:    marker %dexit (block 10): behind, merge, exit-target
; CHECK-NEXT:    markers: 8 all, 3 divergent-only
; CHECK-NEXT:    divergent-only: %djoin, %dloop, %dexit
define spir_kernel void @k(ptr addrspace(1) %out, i32 %n) {
entry:
  %gid = call spir_func i64 @_Z13get_global_idj(i32 0)
  %u = icmp sgt i32 %n, 4
  br i1 %u, label %ua, label %ub
ua:
  store i32 1, ptr addrspace(1) %out
  br label %ujoin
ub:
  store i32 2, ptr addrspace(1) %out
  br label %ujoin
ujoin:
  %d = icmp ult i64 %gid, 16
  br i1 %d, label %da, label %db
da:
  br label %djoin
db:
  br label %djoin
djoin:
  %v = phi i32 [ 1, %da ], [ 2, %db ]
  br label %uloop
uloop:
  %i = phi i32 [ 0, %djoin ], [ %i1, %uloop ]
  %i1 = add i32 %i, 1
  %uc = icmp slt i32 %i1, %n
  br i1 %uc, label %uloop, label %dloop.pre
dloop.pre:
  %t = trunc i64 %gid to i32
  %early = icmp eq i32 %t, 0
  br i1 %early, label %dexit, label %dloop
dloop:
  %j = phi i32 [ 0, %dloop.pre ], [ %j1, %dloop ]
  %j1 = add i32 %j, 1
  %dc = icmp slt i32 %j1, %t
  br i1 %dc, label %dloop, label %dexit
dexit:
  %w = phi i32 [ %v, %dloop.pre ], [ %j1, %dloop ]
  %p = getelementptr i32, ptr addrspace(1) %out, i64 %gid
  store i32 %w, ptr addrspace(1) %p
  ret void
}

; ALL-LABEL: define spir_kernel void @k(
; ALL-COUNT-8: call void @simt.converge
; ALL-NOT:     call void @simt.converge

; DIV-LABEL: define spir_kernel void @k(
; DIV-NOT:     call void @simt.converge
; DIV:       djoin:
; DIV-NEXT:    %v = phi
; DIV-NEXT:    call void @simt.converge(i32 6)
; DIV-NOT:     call void @simt.converge
; DIV:       dloop:
; DIV-NEXT:    %j = phi
; DIV-NEXT:    call void @simt.converge(i32 9)
; DIV-NOT:     call void @simt.converge
; DIV:       dexit:
; DIV-NEXT:    %w = phi
; DIV-NEXT:    call void @simt.converge(i32 10)
; DIV-NOT:     call void @simt.converge
