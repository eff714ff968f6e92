// Block reductions as CUDA code writes them: shuffles down each warp, the
// warp sums through shared memory, and warp 0 (a branch uniform per warp,
// divergent per block) reduces those; the same sum through shared memory
// and __syncthreads alone (the A/B baseline of README); and an int version
// with a templated helper, __ldg and dynamically sized shared memory.
#define FULL 0xffffffffu

template <typename T> __device__ __forceinline__ T warp_sum(T v) {
  for (int off = warpSize / 2; off > 0; off >>= 1) v += __shfl_down_sync(FULL, v, off);
  return v;
}

__global__ void block_sum_warp(const float *__restrict__ in, float *out, int n) {
  __shared__ float sums[32];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x % warpSize, warp = threadIdx.x / warpSize;
  float v = warp_sum(i < n ? in[i] : 0.0f);
  if (lane == 0) sums[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = warp_sum(lane < blockDim.x / warpSize ? sums[lane] : 0.0f);
    if (lane == 0) out[blockIdx.x] = v;
  }
}

__global__ void block_sum_shared(const float *__restrict__ in, float *out, int n) {
  __shared__ float buf[1024];
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  buf[t] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s) buf[t] += buf[t + s];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = buf[0];
}

template <typename T> __device__ void block_sum_into(T v, T *warp_sums, T *out) {
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  v = warp_sum<T>(v);
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = warp_sum<T>(lane < (blockDim.x >> 5) ? warp_sums[lane] : T(0));
    if (lane == 0) *out = v;
  }
}

// Launched with --shared-bytes 4 * (blockDim.x / 32).
__global__ void block_sum_int(const int *in, int *out, int n) {
  extern __shared__ int warp_sums[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  block_sum_into<int>(i < n ? __ldg(&in[i]) : 0, warp_sums, &out[blockIdx.x]);
}
