// An inclusive scan per block (Hillis-Steele in shared memory), as a
// `static __global__` kernel (internal linkage: `_ZL7prescan...`) with a
// template helper, `volatile` shared memory and a __host__ __device__ one.
template <typename T> __device__ T combine(T a, T b) { return a + b; }
__host__ __device__ inline int twice(int x) { return 2 * x; }
static __global__ void prescan(const int *in, int *out) {
  __shared__ int buf[2][256];
  volatile int *v = buf[0];
  int t = threadIdx.x, base = blockIdx.x * blockDim.x;
  int src = 0;
  buf[0][t] = twice(in[base + t]);
  __syncthreads();
  for (int off = 1; off < blockDim.x; off <<= 1) {
    int x = buf[src][t];
    if (t >= off) x = combine(x, buf[src][t - off]);
    buf[1 - src][t] = x;
    src = 1 - src;
    __syncthreads();
  }
  out[base + t] = buf[src][t] + (v[0] - v[0]);
}
