// Sum reduction in CUDA, one partial sum per block: a grid-stride loop, then a
// tree reduction in a static __shared__ array with __syncthreads() inside a
// loop with a uniform trip count and a divergent `if (tid < s)`.
// Launch: 1-D, block = a power of two <= 256 (64, 128, 256), any grid.
// Args: in (buf f32 n), partial (buf f32 gridDim.x), n (u32).
// partial[b] = sum of in[i] for i = b*B + tid + k*gridDim.x*B (k >= 0).
#define MAX_BLOCK 256

extern "C" __global__ void reduce_sum(const float *in, float *partial, unsigned n) {
  __shared__ float sdata[MAX_BLOCK];
  unsigned tid = threadIdx.x;
  unsigned stride = gridDim.x * blockDim.x;
  float sum = 0.0f;
  for (unsigned i = blockIdx.x * blockDim.x + tid; i < n; i += stride)
    sum += in[i];
  sdata[tid] = sum;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    partial[blockIdx.x] = sdata[0];
}
