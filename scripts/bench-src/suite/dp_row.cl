// Row-by-row minimum-path DP (a pathfinder-style sweep): dst[c] = the cheapest
// path cost through `steps` rows of `wall` starting from src, each step
// moving to one of the three cells below. A work-group of 256 covers 256 -
// 2*steps output columns plus a halo of `steps` on each side in __local
// memory, so it needs no other group's values; two barriers per row.
// Launch: global = ceil(cols / (256 - 2*steps)) * 256, local (256).
// Args: wall (i32 rows*cols), src, dst (i32 cols), cols, start, steps (i32).
#define BLOCK 256
__kernel void dp_row(__global const int *wall, __global const int *src,
                     __global int *dst, int cols, int start, int steps) {
  __local int prev[BLOCK];
  __local int cur[BLOCK];
  int tx = get_local_id(0);
  int bs = get_local_size(0);
  int width = bs - 2 * steps;
  int c = get_group_id(0) * width - steps + tx;
  int cc = clamp(c, 0, cols - 1);
  prev[tx] = src[cc];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = 0; s < steps; ++s) {
    int l = (tx > 0 && c > 0) ? prev[tx - 1] : prev[tx];
    int r = (tx < bs - 1 && c < cols - 1) ? prev[tx + 1] : prev[tx];
    cur[tx] = min(min(l, r), prev[tx]) + wall[(start + s) * cols + cc];
    barrier(CLK_LOCAL_MEM_FENCE);
    prev[tx] = cur[tx];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (tx >= steps && tx < bs - steps && c < cols)
    dst[c] = prev[tx];
}
