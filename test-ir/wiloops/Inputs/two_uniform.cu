// Two stores under branches on the kernel's arguments, the same for every
// work-item, in one region of the warp dispatcher (after the ballot's
// warp barrier).
__global__ void two_uniform(const int *in, int *out, int *out2, int a, int b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned m = __ballot_sync(0xffffffffu, in[i] > 0);
  int v = __popc(m) + in[i];
  if (a > 0) out[i] = v;
  if (b > 0) out2[i] = 3 * v;
}
