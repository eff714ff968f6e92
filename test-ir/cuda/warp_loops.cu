// Loops of warp functions whose trip counts are the same within a warp but
// not within a block (the host engine puts warp barriers on their back edge
// and exit, passes/src/transform/warp_loops.rs): warp w runs w % 3 + 1
// butterfly rounds, then adds its lane 0's value until that passes `limit`
// or 6 steps were taken (a loop whose test reads a shuffle's result).
// Launched with blocks whose last warp is partial, and `n` past which lanes
// read no input.
#define FULL 0xffffffffu

__global__ void warp_rounds(const int *in, int *out, int n, int limit) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int warp = threadIdx.x / 32;
  int v = i < n ? in[i] & 255 : 0;
  for (int r = 0; r <= warp % 3; r++) v += __shfl_xor_sync(FULL, v, 1 << r);
  int steps = 0;
  while (true) {
    int first = __shfl_sync(FULL, v, 0);
    if (first > limit) break;
    v += first + 1;
    if (++steps == 6) break;
  }
  if (i < n) out[i] = v * 16 + steps;
}
