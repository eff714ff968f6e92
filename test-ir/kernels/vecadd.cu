// Vector add in CUDA, c = a + b: blockIdx/blockDim/threadIdx, a bounds check,
// no barrier. extern "C" keeps the kernel's name unmangled (`vecadd`).
// Launch: 1-D, grid * block >= n, block = any (64, 128, 256).
// Args: a (buf f32 n), b (buf f32 n), c (buf f32 n), n (i32).
extern "C" __global__ void vecadd(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}
