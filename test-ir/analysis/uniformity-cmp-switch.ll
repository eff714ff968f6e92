; Switches in CUDA kernels: simt's print<simt-uniformity> must mark exactly
; the instructions LLVM's print<uniformity> marks for nvptx64.
; RUN: %opt -passes='print<uniformity>' -disable-output %s 2>&1 | %python %tools/divergent.py > %t.llvm
; RUN: %simt-opt -passes='print<simt-uniformity>' -disable-output %s 2>&1 | %python %tools/divergent.py > %t.simt
; RUN: diff %t.llvm %t.simt
; RUN: FileCheck %s --input-file=%t.simt

target triple = "nvptx64-nvidia-cuda"

; switch (tid & 3): the switch is divergent and %join, reached from every
; case, is its join: the phi is divergent.
; CHECK-LABEL: on_tid: DIVERGENT:   %tid =
; CHECK-NEXT:  on_tid: DIVERGENT:   %k = and i32 %tid, 3
; CHECK-NEXT:  on_tid: DIVERGENT:   switch i32 %k
; CHECK:       on_tid: DIVERGENT:   %p = phi
; CHECK-NEXT:  on_tid: DIVERGENT:   store i32 %p
define ptx_kernel void @on_tid(ptr addrspace(1) %out) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %k = and i32 %tid, 3
  switch i32 %k, label %def [
    i32 0, label %c0
    i32 1, label %c1
    i32 2, label %c2
  ]
c0:
  br label %join
c1:
  br label %join
c2:
  br label %join
def:
  br label %join
join:
  %p = phi i32 [ 10, %c0 ], [ 11, %c1 ], [ 12, %c2 ], [ 13, %def ]
  store i32 %p, ptr addrspace(1) %out
  ret void
}

; A divergent switch with duplicate targets, and a case that skips straight
; to the join. %ab is reached from %entry only (three switch slots, one CFG
; edge), so it is no join and its phi, whose entries all say 5, is uniform;
; %join is reached from %ab, %c and %entry directly: its phi is divergent.
; CHECK-LABEL: duplicates: DIVERGENT:   switch
; CHECK-NOT:   duplicates: DIVERGENT:   %one
; CHECK:       duplicates: DIVERGENT:   %p = phi
define ptx_kernel void @duplicates(ptr addrspace(1) %out) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  switch i32 %tid, label %ab [
    i32 0, label %ab
    i32 1, label %c
    i32 2, label %ab
    i32 3, label %join
  ]
ab:
  %one = phi i32 [ 5, %entry ], [ 5, %entry ], [ 5, %entry ]
  br label %join
c:
  br label %join
join:
  %p = phi i32 [ %one, %ab ], [ 7, %c ], [ 9, %entry ]
  store i32 %p, ptr addrspace(1) %out
  ret void
}

; A uniform switch whose cases contain a divergent branch: only the phi at
; that branch's own join (%c1.join) is divergent; %join's phi is uniform
; (its incoming values are uniform and the switch is uniform).
; CHECK-LABEL: uniform_switch: DIVERGENT:   %tid =
; CHECK-NEXT:  uniform_switch: DIVERGENT:   %d =
; CHECK-NEXT:  uniform_switch: DIVERGENT:   br i1 %d
; CHECK-NEXT:  uniform_switch: DIVERGENT:   %in = phi
; CHECK-NEXT:  uniform_switch: DIVERGENT:   store i32 %in
; CHECK-NOT:   uniform_switch:
define ptx_kernel void @uniform_switch(ptr addrspace(1) %out, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  switch i32 %n, label %def [
    i32 0, label %c0
    i32 1, label %c1
  ]
c0:
  br label %join
c1:
  %d = icmp eq i32 %tid, 0
  br i1 %d, label %c1.then, label %c1.join
c1.then:
  br label %c1.join
c1.join:
  %in = phi i32 [ 1, %c1.then ], [ 2, %c1 ]
  %g = getelementptr i32, ptr addrspace(1) %out, i32 1
  store i32 %in, ptr addrspace(1) %g
  br label %join
def:
  br label %join
join:
  %p = phi i32 [ 0, %c0 ], [ 1, %c1.join ], [ 2, %def ]
  store i32 %p, ptr addrspace(1) %out
  ret void
}

; A switch on tid as a loop's exit test: some cases continue, others leave
; to two different exits; the counter is divergent after the loop.
; CHECK-LABEL: switch_exit: DIVERGENT:   %tid =
; CHECK:       switch_exit: DIVERGENT:   switch i32 %k
; CHECK:       switch_exit: DIVERGENT:   %r = phi
; CHECK-NEXT:  switch_exit: DIVERGENT:   store i32 %r
define ptx_kernel void @switch_exit(ptr addrspace(1) %out, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %i.next = add i32 %i, 1
  %k = sub i32 %i, %tid
  switch i32 %k, label %loop [
    i32 0, label %exit.a
    i32 1, label %exit.b
    i32 2, label %exit.a
  ]
exit.a:
  br label %done
exit.b:
  br label %done
done:
  %r = phi i32 [ %i, %exit.a ], [ %i.next, %exit.b ]
  store i32 %r, ptr addrspace(1) %out
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
