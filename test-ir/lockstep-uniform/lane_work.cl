// Loops with no consecutive access (passes/src/transform/lockstep_uniform.rs,
// the `contiguous` rule's lane-work clause).

// Each work-item sums a pull towards every point of a __local tile: the tile
// is read at uniform addresses, the arithmetic is per work-item, three sums
// are carried. Taken by default: the step's work-item loop widens it.
// Launch: global n, local L; n % L == 0. Args: xy (f32 2n), out (f32 3n), n.
__kernel void tile_pull(__global const float *xy, __global float *out, int n) {
  __local float tx[64], ty[64];
  int lid = get_local_id(0), ls = get_local_size(0), i = get_global_id(0);
  float x = xy[2 * i], y = xy[2 * i + 1];
  float ax = 0.0f, ay = 0.0f, w = 0.0f;
  for (int t = 0; t < n; t += ls) {
    tx[lid] = xy[2 * (t + lid)];
    ty[lid] = xy[2 * (t + lid) + 1];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = 0; k < ls; ++k) {
      float dx = tx[k] - x, dy = ty[k] - y;
      float r = 1.0f / sqrt(dx * dx + dy * dy + 0.25f);
      ax += dx * r;
      ay += dy * r;
      w += r;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  out[3 * i] = ax;
  out[3 * i + 1] = ay;
  out[3 * i + 2] = w;
}

// The same loop shape, but every value in it is the same for all
// work-items (a polynomial of the uniform coefficients): nothing to widen,
// not taken.
__kernel void uniform_poly(__global const float *c, __global float *out, int m,
                           float t) {
  float s = 0.0f;
  for (int k = 0; k < m; ++k)
    s = s * t + c[k];
  out[get_global_id(0)] = s * (float)get_global_id(0);
}
