// The least CUDA needs without the toolkit: attributes and the builtin
// variables, from clang's own header.
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))
#include <__clang_cuda_builtin_vars.h>
__device__ void __syncthreads() __attribute__((convergent)) __asm("llvm.nvvm.barrier0");
