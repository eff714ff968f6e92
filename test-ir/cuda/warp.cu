// Warp functions (emulator at --warp-width 32, and GPUs; the host engine
// refuses them, naming the intrinsic): a shuffle-down reduction into one
// float atomicAdd per warp, and per thread: a broadcast, up/xor shuffles,
// a ballot, all/any votes and the active mask inside a divergent branch.
__global__ void warp_reduce(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? in[i] : 0.0f;
  for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffff, v, off);
  if ((threadIdx.x & 31) == 0) atomicAdd(out, v);
}

__global__ void warp_ops(const int *in, int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int x = in[i];
  int *o = out + 8 * i;
  o[0] = __shfl_sync(0xffffffff, x, 3);
  o[1] = __shfl_up_sync(0xffffffff, x, 1);
  o[2] = __shfl_xor_sync(0xffffffff, x, 5);
  o[3] = __shfl_down_sync(0xffffffff, x, 2, 8);
  o[4] = (int)__ballot_sync(0xffffffff, x & 1);
  o[5] = __all_sync(0xffffffff, x >= 0) + 2 * __any_sync(0xffffffff, x > 900);
  o[6] = 0;
  if (x & 1) o[6] = (int)__activemask();
  o[7] = __shfl_sync(0xffffffff, x, threadIdx.x + 1, 16);
}
