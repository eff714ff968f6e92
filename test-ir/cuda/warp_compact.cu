// Stream compaction with ballots: each warp counts its kept elements with
// __ballot_sync and __popc, thread 0 turns the counts into offsets, and
// each kept element goes to its block's segment of `out`, in order, at its
// warp's offset plus the kept lanes below it (__lanemask_lt).
#define FULL 0xffffffffu

__global__ void compact(const int *in, int *out, int *counts, int n) {
  __shared__ int base[32];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  int x = i < n ? in[i] : 0;
  bool keep = i < n && x % 3 == 0;
  unsigned kept = __ballot_sync(FULL, keep);
  if (lane == 0) base[warp] = __popc(kept);
  __syncthreads();
  if (threadIdx.x == 0) {
    int s = 0;
    for (int w = 0; w < (blockDim.x + 31) / 32; w++) {
      int c = base[w];
      base[w] = s;
      s += c;
    }
    counts[blockIdx.x] = s;
  }
  __syncthreads();
  if (keep) out[blockIdx.x * blockDim.x + base[warp] + __popc(kept & __lanemask_lt())] = x;
}
