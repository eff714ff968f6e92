// SAXPY in CUDA; compiled with test-ir/examples/cuda.h (see saxpy.ll's first line).
__global__ void saxpy(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}
