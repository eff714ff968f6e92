; Markers are for an executor that reads them, not for a CPU or a PTX backend:
; simt-strip-markers removes the calls and the convergence tokens and bundles
; (llc -O0 aborts on convergence.loop in LLVM 22, and x86's -O0 instruction
; selection crashes on the tokens), after which the usual lowering works at
; every level, for x86-64 (an OpenCL kernel with barriers) and NVPTX (a CUDA
; kernel with __syncthreads), plain markers or tokens.
; RUN: %simt-opt -passes='simt-converge,default<O2>,simt-strip-markers' -O0 -mtriple=x86_64-unknown-linux-gnu --filetype=asm %S/../kernels/reduction.ll -o - | FileCheck %s --check-prefix=X86
; RUN: %simt-opt -passes='simt-converge,default<O2>,simt-strip-markers' -O1 -mtriple=x86_64-unknown-linux-gnu --filetype=asm %S/../kernels/reduction.ll -o - | FileCheck %s --check-prefix=X86
; RUN: %simt-opt -passes='simt-converge,default<O2>,simt-strip-markers' -O2 -mtriple=x86_64-unknown-linux-gnu --filetype=asm %S/../kernels/reduction.ll -o - | FileCheck %s --check-prefix=X86
; RUN: %simt-opt -passes='simt-converge,default<O2>,simt-strip-markers' -O3 -mtriple=x86_64-unknown-linux-gnu --filetype=asm %S/../kernels/reduction.ll -o - | FileCheck %s --check-prefix=X86
; RUN: %simt-opt -passes='simt-converge<intrinsics>,default<O2>,simt-strip-markers' -O0 -mtriple=x86_64-unknown-linux-gnu --filetype=asm %S/../kernels/reduction.ll -o - | FileCheck %s --check-prefix=X86
; RUN: %simt-opt -passes='simt-converge<intrinsics>,default<O2>,simt-strip-markers' -O1 -mtriple=x86_64-unknown-linux-gnu --filetype=asm %S/../kernels/reduction.ll -o - | FileCheck %s --check-prefix=X86
; RUN: %simt-opt -passes='simt-converge<intrinsics>,default<O2>,simt-strip-markers' -O2 -mtriple=x86_64-unknown-linux-gnu --filetype=asm %S/../kernels/reduction.ll -o - | FileCheck %s --check-prefix=X86
; RUN: %simt-opt -passes='simt-converge<intrinsics>,default<O2>,simt-strip-markers' -O3 -mtriple=x86_64-unknown-linux-gnu --filetype=asm %S/../kernels/reduction.ll -o - | FileCheck %s --check-prefix=X86
; RUN: %simt-opt -passes='simt-converge,default<O2>,simt-strip-markers' -O0 -mcpu=sm_70 --filetype=asm %S/../kernels/reduction.cu.ll -o - | FileCheck %s --check-prefix=PTX
; RUN: %simt-opt -passes='simt-converge,default<O2>,simt-strip-markers' -O1 -mcpu=sm_70 --filetype=asm %S/../kernels/reduction.cu.ll -o - | FileCheck %s --check-prefix=PTX
; RUN: %simt-opt -passes='simt-converge,default<O2>,simt-strip-markers' -O2 -mcpu=sm_70 --filetype=asm %S/../kernels/reduction.cu.ll -o - | FileCheck %s --check-prefix=PTX
; RUN: %simt-opt -passes='simt-converge,default<O2>,simt-strip-markers' -O3 -mcpu=sm_70 --filetype=asm %S/../kernels/reduction.cu.ll -o - | FileCheck %s --check-prefix=PTX
; RUN: %simt-opt -passes='simt-converge<intrinsics>,default<O2>,simt-strip-markers' -O0 -mcpu=sm_70 --filetype=asm %S/../kernels/reduction.cu.ll -o - | FileCheck %s --check-prefix=PTX
; RUN: %simt-opt -passes='simt-converge<intrinsics>,default<O2>,simt-strip-markers' -O1 -mcpu=sm_70 --filetype=asm %S/../kernels/reduction.cu.ll -o - | FileCheck %s --check-prefix=PTX
; RUN: %simt-opt -passes='simt-converge<intrinsics>,default<O2>,simt-strip-markers' -O2 -mcpu=sm_70 --filetype=asm %S/../kernels/reduction.cu.ll -o - | FileCheck %s --check-prefix=PTX
; RUN: %simt-opt -passes='simt-converge<intrinsics>,default<O2>,simt-strip-markers' -O3 -mcpu=sm_70 --filetype=asm %S/../kernels/reduction.cu.ll -o - | FileCheck %s --check-prefix=PTX
; The shipped examples, and this file's own kernel with a loop for NVPTX.
; RUN: %simt-opt -passes='simt-converge<divergent-only>,default<O2>,simt-strip-markers' -O2 -mtriple=x86_64-unknown-linux-gnu --filetype=asm %S/../examples/reduce.ll -o - | FileCheck %s --check-prefix=X86
; RUN: %simt-opt -passes='simt-converge<intrinsics>,default<O2>,simt-strip-markers' -O2 -mcpu=sm_70 --filetype=asm %S/../examples/saxpy.ll -o - | FileCheck %s --check-prefix=SAXPY
; RUN: %simt-opt -passes='simt-converge<intrinsics>,simt-strip-markers' -O0 -mcpu=sm_70 --filetype=asm %s -o - | FileCheck %s --check-prefix=LOOP
; RUN: %simt-opt -passes='simt-converge<intrinsics>,simt-strip-markers' -O0 -mtriple=x86_64-unknown-linux-gnu --filetype=asm %s -o - | FileCheck %s --check-prefix=LOOPX86
;
; X86:       reduce_sum:
; X86:       callq _Z7barrierj
; X86-NOT:   simt
; PTX:       .visible .entry reduce_sum(
; PTX:       bar.sync
; PTX-NOT:   simt
; SAXPY:     .visible .entry _Z5saxpyifPKfPf(
; SAXPY-NOT: simt
; LOOP:      .visible .entry loop(
; LOOP-NOT:  simt
; LOOPX86:     loop:
; LOOPX86-NOT: simt

target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @loop(ptr %p, i32 %n) {
entry:
  br label %head
head:
  %i = phi i32 [ 0, %entry ], [ %i1, %head ]
  %q = getelementptr i32, ptr %p, i32 %i
  store i32 %i, ptr %q
  %i1 = add i32 %i, 1
  %c = icmp slt i32 %i1, %n
  br i1 %c, label %head, label %exit
exit:
  ret void
}
