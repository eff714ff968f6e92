; guard=branch (simt-ifconvert's header): a guarded load or store alone keeps
; a branch on its predicate, everything else is straight-line code. The
; default on CPU triples (here: simt-opt -mtriple retargets before the pass),
; what the host's loop vectorizer turns into masked vector accesses. The fault
; and race kernels of fault-and-race.ll, converted this way, run before and
; after on the emulator (which checks every access against its buffer) and
; on the host, with the original's results bit for bit.
;
; fault: lanes 40..63 fail `tid < n` and must not read in[tid] (40 elements).
; RUN: rm -rf %t && mkdir -p %t
; RUN: %simt-opt -passes='simt-ifconvert<mode=all;max-cost=none;guard=branch>' -S %s -o %t/branch.ll
; RUN: FileCheck %s --check-prefix=IR < %t/branch.ll
; RUN: %simt-opt -mtriple=x86_64-unknown-linux-gnu -passes='simt-ifconvert<mode=all;max-cost=none>' -S %s -o %t/x86.ll
; RUN: FileCheck %s --check-prefix=IR < %t/x86.ll
; RUN: simt-run %s --kernel fault --global 64 --local 64 --engine emu --arg buf:i32:64 --arg buf:i32:40=ramp --arg i32:40 --dump %t/fault
; RUN: simt-run %t/branch.ll --kernel fault --global 64 --local 64 --engine emu --arg buf:i32:64 --arg buf:i32:40=ramp --arg i32:40 --compare %t/fault
; RUN: simt-run %t/branch.ll --kernel fault --global 64 --local 64 --arg buf:i32:64 --arg buf:i32:40=ramp --arg i32:40 --compare %t/fault
; Without its branch the load would be out of bounds: the emulator says so.
; RUN: sed -e 's/br i1 %c, label %ifc.do, label %ifc.cont/br i1 true, label %ifc.do, label %ifc.cont/' %t/branch.ll > %t/unguarded.ll
; RUN: not simt-run %t/unguarded.ll --kernel fault --global 64 --local 64 --engine emu --arg buf:i32:64 --arg buf:i32:40=ramp --arg i32:40 2>&1 | FileCheck %s --check-prefix=OOB
;
; race: only lane 0 may write out[0]; a store made unconditional (or a
; read-modify-write of out[0]) by every lane would leave another lane's value.
; RUN: simt-run %s --kernel race --global 64 --local 64 --engine emu --arg buf:i32:65 --dump %t/race
; RUN: simt-run %t/branch.ll --kernel race --global 64 --local 64 --engine emu --policy none --arg buf:i32:65 --compare %t/race
; RUN: simt-run %t/branch.ll --kernel race --global 64 --local 64 --arg buf:i32:65 --compare %t/race
; RUN: simt-run %t/x86.ll --kernel race --global 64 --local 64 --arg buf:i32:65 --compare %t/race
;
; Options: a bad guard form is a clear error.
; RUN: not %simt-opt -passes='simt-ifconvert<guard=masked>' -S %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD
; BAD: guard must be 'scratch' or 'branch', got 'masked'

; IR-LABEL: define {{.*}}void @fault(
; IR-NOT:     alloca
; IR:         %c = icmp slt i32 %tid, %n
; IR:         br i1 %c, label %ifc.do, label %ifc.cont
; IR:       ifc.do:
; IR-NEXT:    %v = load i32, ptr addrspace(1) %p, align 4
; IR-NEXT:    br label %ifc.cont
; IR:       ifc.cont:
; IR-NEXT:    %ifc.ld = phi i32 [ %v, %ifc.do ], [ poison, %entry ]
; IR-NEXT:    select i1 %c, i32 %ifc.ld, i32 -1
; OOB: out of bounds
target triple = "nvptx64-nvidia-cuda"
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

define ptx_kernel void @fault(ptr addrspace(1) %out, ptr addrspace(1) %in, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %c = icmp slt i32 %tid, %n
  br i1 %c, label %then, label %join
then:
  %p = getelementptr i32, ptr addrspace(1) %in, i32 %tid
  %v = load i32, ptr addrspace(1) %p, align 4
  br label %join
join:
  %r = phi i32 [ %v, %then ], [ -1, %entry ]
  %q = getelementptr i32, ptr addrspace(1) %out, i32 %tid
  store i32 %r, ptr addrspace(1) %q, align 4
  ret void
}

; IR-LABEL: define {{.*}}void @race(
; IR:         %c = icmp eq i32 %tid, 0
; IR-NEXT:    br i1 %c, label %ifc.do, label %ifc.cont
; IR:       ifc.do:
; IR-NEXT:    store i32 7, ptr addrspace(1) %out, align 4
; IR-NEXT:    br label %ifc.cont
; IR:       ifc.cont:
; IR-NOT:     br i1
; IR:         store i32 %tid
define ptx_kernel void @race(ptr addrspace(1) %out) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %c = icmp eq i32 %tid, 0
  br i1 %c, label %then, label %join
then:
  store i32 7, ptr addrspace(1) %out, align 4
  br label %join
join:
  %t1 = add i32 %tid, 1
  %q = getelementptr i32, ptr addrspace(1) %out, i32 %t1
  store i32 %tid, ptr addrspace(1) %q, align 4
  ret void
}
