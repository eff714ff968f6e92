// Sum reduction: a shared-memory tree per block, then one float atomicAdd
// per block into *out (CUDA's usual two-level reduction).
__global__ void atomic_sum(const float *in, float *out, int n) {
  __shared__ float part[128];
  int t = threadIdx.x;
  int i = blockIdx.x * blockDim.x + t;
  part[t] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s) part[t] += part[t + s];
    __syncthreads();
  }
  if (t == 0) atomicAdd(out, part[0]);
}
