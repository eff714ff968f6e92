/* 5-point Jacobi step: interior 0.2 * (centre + 4 neighbours), boundary
 * copied. Args as stencil2d.cl: in, out (buf f32), width, height (i32). */
#define KERNEL_NAME "stencil2d"
#include "harness.h"

static void kernel(struct launch *L) {
  const float *restrict in = buf_arg(L, 0, T_F32);
  float *restrict out = buf_arg(L, 1, T_F32);
  long w = int_arg(L, 2), h = int_arg(L, 3);
#pragma omp parallel for schedule(static)
  for (long y = 0; y < h; ++y) {
    const float *r = in + y * w;
    float *o = out + y * w;
    if (y == 0 || y == h - 1 || w < 3) {
      for (long x = 0; x < w; ++x) o[x] = r[x];
      continue;
    }
    o[0] = r[0];
#pragma omp simd
    for (long x = 1; x < w - 1; ++x)
      o[x] = 0.2f * (r[x] + r[x - 1] + r[x + 1] + r[x - w] + r[x + w]);
    o[w - 1] = r[w - 1];
  }
}
