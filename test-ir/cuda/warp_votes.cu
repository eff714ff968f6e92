// Per-lane results of the warp reductions, match and __syncwarp (whole
// warps), and of votes and shuffles in a block whose last warp is partial.
#define FULL 0xffffffffu

__global__ void warp_reduce_ops(const int *in, int *out) {
  __shared__ int s[1024];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int x = in[i];
  int *o = out + 10 * i;
  o[0] = __reduce_add_sync(FULL, x);
  o[1] = __reduce_min_sync(FULL, x);
  o[2] = (int)__reduce_max_sync(FULL, (unsigned)x);
  o[3] = (int)__reduce_and_sync(FULL, (unsigned)x | 0x10000);
  o[4] = (int)__reduce_or_sync(FULL, (unsigned)x & 0xff);
  o[5] = (int)__reduce_xor_sync(FULL, (unsigned)x);
  int pred;
  o[6] = (int)__match_all_sync(FULL, x & 1, &pred);
  o[7] = pred + 2 * (__match_all_sync(FULL, x >> 20, &pred) == FULL) + 4 * pred;
  o[8] = (int)__match_any_sync(FULL, x & 3);
  s[threadIdx.x] = x;
  __syncwarp();
  o[9] = s[threadIdx.x ^ 1];
}

// Launched with blocks of 48: the second warp has lanes 0-15 only.
__global__ void partial_warps(const int *in, int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int x = in[i];
  int *o = out + 4 * i;
  o[0] = (int)__activemask();
  o[1] = __popc(__ballot_sync(__activemask(), x & 1));
  // Lanes 16-31 of the second warp do not exist: simt gives the caller its
  // own value (undefined in CUDA).
  o[2] = __shfl_down_sync(FULL, x, 16);
  o[3] = __shfl_xor_sync(FULL, x, 1) + __any_sync(FULL, x > 500) * 1000000;
}
