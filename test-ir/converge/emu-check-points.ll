; The emulator's `markers` policy on IR without markers checks at the
; convergence analysis's check points (Convergence::check_points): every
; mark but those only of the walk's scheduling rule. Here an irreducible
; cycle {a, b}, entered at both, left from both:
;
;   entry -> a, b;  a -> out1, b;  b -> out2, a;  out1, out2 -> done
;
; By hand: a and b have two incoming edges and leave the cycle; out1 and
; out2 are where it is left (one edge each: threads that leave in different
; iterations meet there); done has two incoming edges. 5 check blocks.
; RUN: simt-opt -passes='print<simt-convergence>' -disable-output %s 2>&1 | FileCheck %s --check-prefix=CONV
; CONV:      marker %a (block 1): loop-exit, back-edge{{$}}
; CONV-NEXT: marker %b (block 2): behind, merge, loop-exit{{$}}
; CONV-NEXT: marker %out1 (block 3): behind, exit-target{{$}}
; CONV-NEXT: marker %out2 (block 4): behind, exit-target{{$}}
; CONV-NEXT: marker %done (block 5): behind, merge{{$}}
;
; Every lane leaves once its counter passes its id: out[tid] = tid + 1, as
; on the host engine.
; RUN: rm -rf %t && mkdir -p %t/host
; RUN: simt-run %s --kernel k --global 8 --local 8 --arg buf:i32:8=zero --dump %t/host
; RUN: od -An -td4 -w32 %t/host/arg0.bin | FileCheck %s --check-prefix=OUT
; OUT: 1{{ +}}2{{ +}}3{{ +}}4{{ +}}5{{ +}}6{{ +}}7{{ +}}8{{$}}
; RUN: simt-run %s --kernel k --engine emu --policy markers --warp-width 8 --global 8 --local 8 --arg buf:i32:8=zero --compare %t/host --stats json | FileCheck %s
; CHECK: "check_blocks":5
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @k(ptr addrspace(1) %out) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %c = icmp ult i32 %tid, 2
  br i1 %c, label %a, label %b
a:
  %i.a = phi i32 [ 0, %entry ], [ %i.b1, %b ]
  %i.a1 = add i32 %i.a, 1
  %ea = icmp ugt i32 %i.a1, %tid
  br i1 %ea, label %out1, label %b
b:
  %i.b = phi i32 [ 0, %entry ], [ %i.a1, %a ]
  %i.b1 = add i32 %i.b, 1
  %eb = icmp ugt i32 %i.b1, %tid
  br i1 %eb, label %out2, label %a
out1:
  br label %done
out2:
  br label %done
done:
  %r = phi i32 [ %i.a1, %out1 ], [ %i.b1, %out2 ]
  %p = getelementptr i32, ptr addrspace(1) %out, i32 %tid
  store i32 %r, ptr addrspace(1) %p
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
