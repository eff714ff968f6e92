// Softmax of rows of 64 floats, one warp per row: each lane holds two
// elements, the row's maximum and sum come from butterfly shuffles
// (__shfl_xor_sync), so every lane ends with the same values.
#define FULL 0xffffffffu

__device__ float warp_max(float v) {
  for (int m = 16; m > 0; m >>= 1) v = fmaxf(v, __shfl_xor_sync(FULL, v, m));
  return v;
}

__device__ float warp_add(float v) {
  for (int m = 16; m > 0; m >>= 1) v += __shfl_xor_sync(FULL, v, m);
  return v;
}

__global__ void softmax_warp(const float *x, float *y, int rows) {
  int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  int lane = threadIdx.x & 31;
  if (row >= rows) return;
  const float *r = x + 64 * row;
  float a = r[lane], b = r[lane + 32];
  float m = warp_max(fmaxf(a, b));
  float ea = expf(a - m), eb = expf(b - m);
  float s = warp_add(ea + eb);
  y[64 * row + lane] = ea / s;
  y[64 * row + lane + 32] = eb / s;
}
