// The warp-function kernels of this folder written again with shared memory
// and __syncthreads only (no warp functions), for scripts/bench-warp's
// host-engine comparison; each computes what its twin does (checked in
// tests/cuda_sources.rs). Twins: block_scan (warp_scan.cu), compact
// (warp_compact.cu), softmax_warp (warp_softmax.cu), hist_match
// (warp_hist.cu); block_sum_shared, block_sum_warp's, is in warp_reduce.cu.

// block_scan's inclusive and exclusive prefix sums per block, by a
// Hillis-Steele scan over the whole block in shared memory (blocks of at
// most 1024 threads).
__global__ void block_scan_shared(const int *in, int *incl, int *excl, int n) {
  __shared__ int buf[2][1024];
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  int x = i < n ? in[i] : 0;
  int src = 0;
  buf[0][t] = x;
  __syncthreads();
  for (int d = 1; d < blockDim.x; d <<= 1) {
    int v = buf[src][t];
    if (t >= d) v += buf[src][t - d];
    buf[1 - src][t] = v;
    src = 1 - src;
    __syncthreads();
  }
  if (i < n) {
    incl[i] = buf[src][t];
    excl[i] = buf[src][t] - x;
  }
}

// compact's output: the kept elements (multiples of 3) of each block, in
// order, at the start of the block's segment of `out`, and their count;
// the positions come from a Hillis-Steele scan of the keep flags.
__global__ void compact_shared(const int *in, int *out, int *counts, int n) {
  __shared__ int pos[2][1024];
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  int x = i < n ? in[i] : 0;
  int keep = i < n && x % 3 == 0;
  int src = 0;
  pos[0][t] = keep;
  __syncthreads();
  for (int d = 1; d < blockDim.x; d <<= 1) {
    int v = pos[src][t];
    if (t >= d) v += pos[src][t - d];
    pos[1 - src][t] = v;
    src = 1 - src;
    __syncthreads();
  }
  if (keep) out[blockIdx.x * blockDim.x + pos[src][t] - 1] = x;
  if (t == blockDim.x - 1) counts[blockIdx.x] = pos[src][t];
}

// softmax_warp's rows of 64 floats, 32 threads per row, each holding two
// elements; the row's maximum and sum by a tree in shared memory (blocks of
// at most 1024 threads, a whole number of rows).
__global__ void softmax_shared(const float *x, float *y, int rows) {
  __shared__ float red[1024];
  int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  int lane = threadIdx.x & 31, t = threadIdx.x;
  bool live = row < rows;
  float a = live ? x[64 * row + lane] : 0.0f, b = live ? x[64 * row + lane + 32] : 0.0f;
  red[t] = fmaxf(a, b);
  __syncthreads();
  for (int s = 16; s > 0; s >>= 1) {
    if (lane < s) red[t] = fmaxf(red[t], red[t + s]);
    __syncthreads();
  }
  float m = red[t - lane];
  __syncthreads();
  float ea = expf(a - m), eb = expf(b - m);
  red[t] = ea + eb;
  __syncthreads();
  for (int s = 16; s > 0; s >>= 1) {
    if (lane < s) red[t] += red[t + s];
    __syncthreads();
  }
  float sum = red[t - lane];
  if (live) {
    y[64 * row + lane] = ea / sum;
    y[64 * row + lane + 32] = eb / sum;
  }
}

// hist_match's 16-bin histogram, each thread adding its element with an
// atomic add to the block's shared bins.
__global__ void hist_shared(const int *in, unsigned *hist, int n) {
  __shared__ unsigned bins[16];
  if (threadIdx.x < 16) bins[threadIdx.x] = 0;
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&bins[in[i] & 15], 1u);
  __syncthreads();
  if (threadIdx.x < 16) atomicAdd(&hist[threadIdx.x], bins[threadIdx.x]);
}
