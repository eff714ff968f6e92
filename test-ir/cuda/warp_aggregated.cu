// Warp-aggregated atomics in three shapes (a lowest or highest leader adds
// its group's __popc to a block's shared counter), which the host engine
// runs as one add per lane (simt-deaggregate-atomics) and the emulator as
// written. Written for the pass's tests, not taken from the histogram it
// was made on (warp_hist.cu).
#define FULL 0xffffffffu

// How many elements exceed t: the lanes that do find each other with
// __activemask(), inside the branch, and the lowest adds their count.
__global__ void count_above(const float *x, unsigned *count, int n, float t) {
  __shared__ unsigned c;
  if (threadIdx.x == 0) c = 0;
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && x[i] > t) {
    unsigned active = __activemask();
    if ((threadIdx.x & 31) == __ffs(active) - 1) atomicAdd(&c, __popc(active));
  }
  __syncthreads();
  if (threadIdx.x == 0) atomicAdd(count, c);
}

// A 32-bin histogram of 64-bit keys in 64-bit shared counters, blocks of
// 64 x 2 threads: each group of equal keys (__match_any_sync on the key)
// is counted by its highest lane.
__global__ void hist64_top(const long long *x, unsigned long long *hist, int n) {
  __shared__ unsigned long long bins[32];
  int t = threadIdx.y * blockDim.x + threadIdx.x;
  if (t < 32) bins[t] = 0;
  __syncthreads();
  int i = blockIdx.x * blockDim.x * blockDim.y + t;
  // Past the end the key is -1, a group of its own: with a key of 0
  // there, and `i < n` in the leader's test, an element of bin 0 could
  // be grouped with a lane past the end that leads and adds nothing.
  long long key = i < n ? (x[i] >> 3) & 31 : -1;
  unsigned peers = __match_any_sync(FULL, key);
  if (key >= 0 && (threadIdx.x & 31) == 31 - __clz(peers)) atomicAdd(&bins[key], (unsigned long long)__popc(peers));
  __syncthreads();
  if (t < 32) atomicAdd(&hist[t], bins[t]);
}

// How many elements are at most t, counted down from the block's size:
// the lanes above t vote, and the lowest of them subtracts their number.
__global__ void count_not_above(const float *x, int *count, int n, float t) {
  __shared__ int c;
  if (threadIdx.x == 0) c = blockDim.x;
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned above = __ballot_sync(FULL, i >= n || x[i] > t);
  if (above != 0 && (threadIdx.x & 31) == __ffs(above) - 1) atomicSub(&c, __popc(above));
  __syncthreads();
  if (threadIdx.x == 0) atomicAdd(count, c);
}
