; Stores common to the ends of a region's arms (same pointer value, same
; type, nothing after them in the arm touching memory) are made once after
; the arms, of a select tree of the arms' values (ifconvert/sink.rs, SinkGroup):
; unguarded when every lane of the region runs one of the arms, guarded by
; the predicate of the arms' common dominator otherwise. Expectations by
; hand from that rule; every kernel runs before and after on the emulator
; and the host with the same buffers.
; The shapes are those of the `cost=split` rule, which converts them all
; (the default rule keeps regions that cost more than their cheapest path).
; RUN: rm -rf %t && mkdir -p %t
; RUN: %simt-opt -passes='simt-ifconvert<cost=split>' -S %s -o %t/div.ll
; RUN: %simt-opt -passes='simt-ifconvert<mode=all;max-cost=none>' -S %s -o %t/all.ll
; RUN: FileCheck %s --check-prefix=DIV < %t/div.ll
; RUN: FileCheck %s --check-prefix=ALL < %t/all.ll
; RUN: simt-run %s --kernel cx --engine emu --global 64 --local 64 --arg buf:i32:128 --arg buf:i32:128=rand:3 --dump %t/cx
; RUN: simt-run %t/div.ll --kernel cx --engine emu --global 64 --local 64 --arg buf:i32:128 --arg buf:i32:128=rand:3 --compare %t/cx
; RUN: simt-run %t/all.ll --kernel cx --engine emu --global 64 --local 64 --arg buf:i32:128 --arg buf:i32:128=rand:3 --compare %t/cx
; RUN: simt-run %t/all.ll --kernel cx --global 64 --local 64 --arg buf:i32:128 --arg buf:i32:128=rand:3 --compare %t/cx
; RUN: simt-run %s --kernel crossed --engine emu --global 128 --local 64 --arg buf:i32:256 --arg buf:i32:128=rand:4 --dump %t/crossed
; RUN: simt-run %t/all.ll --kernel crossed --engine emu --global 128 --local 64 --arg buf:i32:256 --arg buf:i32:128=rand:4 --compare %t/crossed
; RUN: simt-run %t/all.ll --kernel crossed --global 128 --local 64 --arg buf:i32:256 --arg buf:i32:128=rand:4 --compare %t/crossed
; RUN: simt-run %s --kernel load_after --engine emu --global 128 --local 64 --arg buf:i32:128 --arg buf:i32:128=rand:5 --dump %t/load_after
; RUN: simt-run %t/all.ll --kernel load_after --engine emu --global 128 --local 64 --arg buf:i32:128 --arg buf:i32:128=rand:5 --compare %t/load_after
; RUN: simt-run %t/all.ll --kernel load_after --global 128 --local 64 --arg buf:i32:128 --arg buf:i32:128=rand:5 --compare %t/load_after

target triple = "nvptx64-nvidia-cuda"
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

; A compare-exchange under `lower`: both arms of the `swap` diamond store to
; %oi then %oj. Default mode: the outer branch stays (its guarded loads
; cost more than divergence), the inner diamond becomes two selects and two
; plain stores in `pair`, in the arms' order.
; DIV-LABEL: define ptx_kernel void @cx(
; DIV:         br i1 %lower, label %pair, label %done
; DIV:       pair:
; DIV-NOT:     ifc.addr
; DIV:         %[[VI:.+]] = select i1 %swap, i32 %bv, i32 %a
; DIV-NEXT:    store i32 %[[VI]], ptr addrspace(1) %oi, align 4
; DIV-NEXT:    %[[VJ:.+]] = select i1 %swap, i32 %a, i32 %bv
; DIV-NEXT:    store i32 %[[VJ]], ptr addrspace(1) %oj, align 4
; DIV-NEXT:    br label %done
; With everything converted, `done` is reached from entry too, so the sunk
; stores are guarded by `lower` (pair's predicate), not by swap: two guarded
; stores where the arms had four.
; ALL-LABEL: define ptx_kernel void @cx(
; ALL-NOT:     br i1
; ALL:         %[[VI:.+]] = select i1 %swap, i32 %bv, i32 %a
; ALL:         %[[AI:.+]] = select i1 %lower, ptr %{{.+}}, ptr %ifc.scratch
; ALL-NEXT:    store i32 %[[VI]], ptr %[[AI]], align 4
; ALL:         %[[VJ:.+]] = select i1 %swap, i32 %a, i32 %bv
; ALL:         %[[AJ:.+]] = select i1 %lower, ptr %{{.+}}, ptr %ifc.scratch
; ALL-NEXT:    store i32 %[[VJ]], ptr %[[AJ]], align 4
; ALL-NOT:     store
; ALL:         ret void
define ptx_kernel void @cx(ptr addrspace(1) %out, ptr addrspace(1) %in) {
entry:
  %i = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %j = xor i32 %i, 1
  %lower = icmp ult i32 %i, %j
  br i1 %lower, label %pair, label %done
pair:
  %pi = getelementptr i32, ptr addrspace(1) %in, i32 %i
  %pj = getelementptr i32, ptr addrspace(1) %in, i32 %j
  %a = load i32, ptr addrspace(1) %pi, align 4
  %bv = load i32, ptr addrspace(1) %pj, align 4
  %swap = icmp sgt i32 %a, %bv
  %oi = getelementptr i32, ptr addrspace(1) %out, i32 %i
  %oj = getelementptr i32, ptr addrspace(1) %out, i32 %j
  br i1 %swap, label %swapped, label %kept
swapped:
  store i32 %bv, ptr addrspace(1) %oi, align 4
  store i32 %a, ptr addrspace(1) %oj, align 4
  br label %done
kept:
  store i32 %a, ptr addrspace(1) %oi, align 4
  store i32 %bv, ptr addrspace(1) %oj, align 4
  br label %done
done:
  ret void
}

; The arms store to the same two pointers in opposite orders: the last
; stores differ (%p2 against %p1), so nothing is common and all four stay,
; each guarded by its arm's predicate.
; ALL-LABEL: define ptx_kernel void @crossed(
; ALL-COUNT-4: store i32 %x, ptr %ifc.addr
; ALL-NOT:     store
; ALL:         ret void
define ptx_kernel void @crossed(ptr addrspace(1) %out, ptr addrspace(1) %in) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %p = getelementptr i32, ptr addrspace(1) %in, i32 %tid
  %x = load i32, ptr addrspace(1) %p, align 4
  %t2 = mul i32 %tid, 2
  %t21 = add i32 %t2, 1
  %p1 = getelementptr i32, ptr addrspace(1) %out, i32 %t2
  %p2 = getelementptr i32, ptr addrspace(1) %out, i32 %t21
  %c = icmp slt i32 %x, 0
  br i1 %c, label %a, label %b
a:
  store i32 %x, ptr addrspace(1) %p1, align 4
  store i32 %x, ptr addrspace(1) %p2, align 4
  br label %join
b:
  store i32 %x, ptr addrspace(1) %p2, align 4
  store i32 %x, ptr addrspace(1) %p1, align 4
  br label %join
join:
  ret void
}

; In arm `a` a load follows the store, so the store is not trailing:
; nothing is sunk, both stores stay guarded (one per arm).
; ALL-LABEL: define ptx_kernel void @load_after(
; ALL-DAG:     store i32 %x, ptr %ifc.addr
; ALL-DAG:     load i32, ptr %ifc.addr
; ALL-DAG:     store i32 %y, ptr %ifc.addr
; ALL:         ret void
define ptx_kernel void @load_after(ptr addrspace(1) %out, ptr addrspace(1) %in) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %p = getelementptr i32, ptr addrspace(1) %in, i32 %tid
  %x = load i32, ptr addrspace(1) %p, align 4
  %y = add i32 %x, 1
  %q = getelementptr i32, ptr addrspace(1) %out, i32 %tid
  %c = icmp slt i32 %x, 0
  br i1 %c, label %a, label %b
a:
  store i32 %x, ptr addrspace(1) %q, align 4
  %again = load i32, ptr addrspace(1) %p, align 4
  br label %join
b:
  store i32 %y, ptr addrspace(1) %q, align 4
  br label %join
join:
  %r = phi i32 [ %again, %a ], [ 0, %b ]
  %q2 = getelementptr i32, ptr addrspace(1) %in, i32 %tid
  store i32 %r, ptr addrspace(1) %q2, align 4
  ret void
}
