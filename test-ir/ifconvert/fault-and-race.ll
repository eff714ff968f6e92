; Predicated accesses neither fault nor race (simt-ifconvert's header: the
; address of a guarded load or store is `select g, p, scratch`, a private
; per-lane slot). Each kernel runs before and after mode=all on the emulator
; (which checks every access against its buffer) and on the host; the
; results must match the original's, bit for bit.
;
; fault: lanes 40..63 fail `tid < n` and must not read in[tid] (the buffer
; holds 40 elements). An unguarded, speculated load would be out of bounds;
; the second RUN pair shows the emulator catches exactly that.
; RUN: rm -rf %t && mkdir -p %t
; RUN: %simt-opt -passes='simt-ifconvert<mode=all;max-cost=none>' -S %s -o %t/all.ll
; RUN: FileCheck %s --check-prefix=IR < %t/all.ll
; RUN: simt-run %s --kernel fault --global 64 --local 64 --engine emu --arg buf:i32:64 --arg buf:i32:40=ramp --arg i32:40 --dump %t/fault
; RUN: simt-run %t/all.ll --kernel fault --global 64 --local 64 --engine emu --arg buf:i32:64 --arg buf:i32:40=ramp --arg i32:40 --compare %t/fault
; RUN: simt-run %t/all.ll --kernel fault --global 64 --local 64 --arg buf:i32:64 --arg buf:i32:40=ramp --arg i32:40 --compare %t/fault
; RUN: sed -e 's/ifc.addr = select i1 %c, ptr %ifc.generic, ptr %ifc.scratch/ifc.addr = select i1 true, ptr %ifc.generic, ptr %ifc.scratch/' %t/all.ll > %t/unguarded.ll
; RUN: not simt-run %t/unguarded.ll --kernel fault --global 64 --local 64 --engine emu --arg buf:i32:64 --arg buf:i32:40=ramp --arg i32:40 2>&1 | FileCheck %s --check-prefix=OOB
;
; race: only lane 0 may write out[0]. Had the store become a read-modify-
; write (`store (select g, 7, old), out[0]`), every lane would write out[0]
; and the last lane's stale 0 would win in the emulator's lane order.
; RUN: simt-run %s --kernel race --global 64 --local 64 --engine emu --arg buf:i32:65 --dump %t/race
; RUN: simt-run %t/all.ll --kernel race --global 64 --local 64 --engine emu --policy none --arg buf:i32:65 --compare %t/race
; RUN: simt-run %t/all.ll --kernel race --global 64 --local 64 --arg buf:i32:65 --compare %t/race

; IR-LABEL: define ptx_kernel void @fault(
; IR:         %ifc.scratch = alloca [4 x i8], align 16
; IR:         %ifc.generic = addrspacecast ptr addrspace(1) %p to ptr
; IR-NEXT:    %ifc.addr = select i1 %c, ptr %ifc.generic, ptr %ifc.scratch
; IR-NEXT:    %v = load i32, ptr %ifc.addr, align 4
; IR-NOT:     br i1
; IR:         ret void
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

; IR-LABEL: define ptx_kernel void @race(
; IR:         %[[C:.*]] = icmp eq i32 %tid, 0
; IR:         %[[A:.*]] = select i1 %[[C]], ptr %{{.*}}, ptr %ifc.scratch
; IR-NEXT:    store i32 7, ptr %[[A]], align 4
; IR-NOT:     br i1
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
