// 3-D convolution: a 3x3x3 stencil with a few non-zero weights on the
// interior of an NX x NY x NZ volume, 3-D launch.
// Launch: global (NX, NY, NZ), local (32, 4, 2). Args: in, out (f32), NX, NY,
// NZ (i32).
__kernel void conv3d(__global const float *in, __global float *out, int nx,
                     int ny, int nz) {
  int x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
  if (x < 1 || y < 1 || z < 1 || x >= nx - 1 || y >= ny - 1 || z >= nz - 1)
    return;
  int sy = nx, sz = nx * ny, c = z * sz + y * sy + x;
  out[c] = 0.2f * in[c - sz - sy - 1] + 0.5f * in[c - sz + sy - 1] -
           0.8f * in[c - sz - sy + 1] - 0.3f * in[c - sy] + 0.6f * in[c] +
           0.7f * in[c + sy] - 0.9f * in[c + sz - sy - 1] +
           0.4f * in[c + sz + sy - 1] + 0.1f * in[c + sz + sy + 1] +
           0.25f * in[c - 1] - 0.15f * in[c + 1];
}
