// `a - m*b` and `a*b + c*d`: clang's CUDA default (-ffp-contract=fast) left
// their contraction to the back end, so the host engine fused them where the
// emulator rounded twice. simt compiles CUDA with -ffp-contract=on: the
// contraction is `llvm.fmuladd` in the IR, fused by every engine.
__global__ void contract(const float *a, const float *b, const float *m, float *y, double *z) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  y[i] = a[i] - m[i] * b[i];
  z[i] = (double)a[i] * (double)b[i] + (double)m[i] * (double)a[i];
}
