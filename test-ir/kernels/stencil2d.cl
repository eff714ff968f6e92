// 5-point Jacobi step on a width x height grid (row-major): interior points
// get 0.2 * (centre + 4 neighbours), the boundary is copied. 2-D launch, no
// barrier, no local memory: neighbours are read straight from global memory.
// Launch: 2-D, global = (width, height) rounded up to a multiple of local,
// local = any 2-D shape (16x16, 32x8, 64x4). Args: in (buf f32 w*h),
// out (buf f32 w*h), width, height (i32).
__kernel void stencil2d(__global const float *in, __global float *out,
                        int width, int height) {
  int x = get_global_id(0);
  int y = get_global_id(1);
  if (x >= width || y >= height)
    return;
  int i = y * width + x;
  if (x == 0 || y == 0 || x == width - 1 || y == height - 1) {
    out[i] = in[i];
    return;
  }
  out[i] = 0.2f * (in[i] + in[i - 1] + in[i + 1] + in[i - width] + in[i + width]);
}
