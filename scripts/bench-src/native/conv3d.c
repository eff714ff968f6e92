/* The 3-D stencil of suite/conv3d.cl on the interior, planes and rows split
 * between threads, vectorised along x. Args: in, out (f32), NX, NY, NZ. */
#define KERNEL_NAME "conv3d"
#include "harness.h"

static void kernel(struct launch *L) {
  const float *restrict in = buf_arg(L, 0, T_F32);
  float *restrict out = buf_arg(L, 1, T_F32);
  long nx = int_arg(L, 2), ny = int_arg(L, 3), nz = int_arg(L, 4), sy = nx, sz = nx * ny;
#pragma omp parallel for collapse(2) schedule(static)
  for (long z = 1; z < nz - 1; ++z)
    for (long y = 1; y < ny - 1; ++y)
#pragma omp simd
      for (long x = 1; x < nx - 1; ++x) {
        long c = z * sz + y * sy + x;
        out[c] = 0.2f * in[c - sz - sy - 1] + 0.5f * in[c - sz + sy - 1] -
                 0.8f * in[c - sz - sy + 1] - 0.3f * in[c - sy] + 0.6f * in[c] +
                 0.7f * in[c + sy] - 0.9f * in[c + sz - sy - 1] +
                 0.4f * in[c + sz + sy - 1] + 0.1f * in[c + sz + sy + 1] +
                 0.25f * in[c - 1] - 0.15f * in[c + 1];
      }
}
