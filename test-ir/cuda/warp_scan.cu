// Block-wide inclusive and exclusive prefix sums: a Kogge-Stone scan in
// each warp with __shfl_up_sync, the warp totals scanned by warp 0, then
// added back. Blocks of whole warps.
#define FULL 0xffffffffu

__device__ __forceinline__ int warp_inclusive_scan(int v) {
  int lane = threadIdx.x & 31;
  for (int d = 1; d < 32; d <<= 1) {
    int t = __shfl_up_sync(FULL, v, d);
    if (lane >= d) v += t;
  }
  return v;
}

__global__ void block_scan(const int *in, int *incl, int *excl, int n) {
  __shared__ int totals[32];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  int x = i < n ? in[i] : 0;
  int v = warp_inclusive_scan(x);
  if (lane == 31) totals[warp] = v;
  __syncthreads();
  if (warp == 0) {
    int t = lane < (blockDim.x >> 5) ? totals[lane] : 0;
    totals[lane] = warp_inclusive_scan(t);
  }
  __syncthreads();
  if (warp > 0) v += totals[warp - 1];
  if (i < n) {
    incl[i] = v;
    excl[i] = v - x;
  }
}
