// Two __shared__ arrays of one block, side by side in shared memory: thread
// l writes a[l + 1], so the last thread writes a[64], one past the end of a,
// which is b[0]. (CUDA reaches them through generic pointers.)
extern "C" __global__ void oob_shared(int *out) {
  __shared__ int a[64];
  __shared__ int b[64];
  int l = threadIdx.x;
  b[l] = 0;
  a[l + 1] = l;
  __syncthreads();
  out[blockIdx.x * blockDim.x + l] = a[l] + b[l];
}
