// Warps in a 2-D block whose rows (blockDim.x = 12) do not hold whole
// warps: lanes are numbered by the linear thread id, x + y * blockDim.x.
__global__ void warp_2d(int *out) {
  int t = threadIdx.x + threadIdx.y * blockDim.x;
  int id = threadIdx.x * 100 + threadIdx.y;
  int *o = out + 2 * (blockIdx.x * blockDim.x * blockDim.y + t);
  o[0] = __shfl_xor_sync(0xffffffffu, id, 5);
  o[1] = __shfl_sync(0xffffffffu, id, 0);
}
