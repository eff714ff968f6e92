// The warp and the lane as CUDA code computes them from threadIdx.x
// (`/ warpSize`, `% warpSize`, `>> 5`, `& 31`), which the host engine's
// warp dispatcher takes as its own warp-uniform ids where the block's warps
// lie in aligned rows of x (passes/src/transform/wiloops/warp_ids.rs).
#define FULL 0xffffffffu

// Blocks whose warps lie in aligned rows of x (blockDim.x a multiple of 32,
// or blockDim.y = blockDim.z = 1): `warp` is the same in all lanes of a
// warp, so the shuffles under the branches on it are run by whole warps.
// Odd warps of a row sum their lanes (shuffle down, a loop); even ones
// rotate by 3 and mix with lane ^ 13.
__global__ void warp_branch(const int *in, int *out) {
  int t = threadIdx.y * blockDim.x + threadIdx.x;
  int g = blockIdx.x * blockDim.x * blockDim.y + t;
  int warp = threadIdx.x / warpSize, lane = threadIdx.x % warpSize;
  int v = in[g], r;
  if (warp % 2 == 1) {
    r = v;
    for (int off = 16; off > 0; off >>= 1) r += __shfl_down_sync(FULL, r, off);
  } else {
    r = __shfl_up_sync(FULL, v, 3) + 7 * __shfl_xor_sync(FULL, v, 13);
  }
  if (warp == 0 && lane < 4) r += 1000000;
  out[g] = r;
}

// Any block shape: the ids only feed data and per-lane shuffle offsets
// (not uniform in the warp), never a branch around a warp function.
__global__ void warp_offsets(const int *in, int *out) {
  int t = threadIdx.y * blockDim.x + threadIdx.x;
  int g = blockIdx.x * blockDim.x * blockDim.y + t;
  int w = threadIdx.x >> 5, lane = threadIdx.x & 31;
  int v = in[g];
  int a = __shfl_sync(FULL, v, (lane * 7 + 3) % 32);
  int d = __shfl_down_sync(FULL, v, w + 1 + lane % 3);
  out[3 * g] = a;
  out[3 * g + 1] = d;
  out[3 * g + 2] = w * 1000 + lane;
}
