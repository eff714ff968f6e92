// A 16-bin histogram where the lanes of a warp that share a bin find each
// other with __match_any_sync and one of them (the lowest, __ffs) adds their
// count to the block's shared bins; blocks then add theirs to `hist`.
#define FULL 0xffffffffu

__global__ void hist_match(const int *in, unsigned *hist, int n) {
  __shared__ unsigned bins[16];
  if (threadIdx.x < 16) bins[threadIdx.x] = 0;
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int bin = i < n ? in[i] & 15 : -1;
  unsigned peers = __match_any_sync(FULL, bin);
  if (bin >= 0 && (threadIdx.x & 31) == __ffs(peers) - 1) atomicAdd(&bins[bin], (unsigned)__popc(peers));
  __syncthreads();
  if (threadIdx.x < 16) atomicAdd(&hist[threadIdx.x], bins[threadIdx.x]);
}
