/* Lennard-Jones forces over the neighbour list: atoms split between
 * threads. Args as suite/lj_force.cl: pos (f32 4n), neigh (i32 maxn*n),
 * nneigh (i32 n), force (f32 4n), n (i32), cut2, lj1, lj2 (f32). */
#define KERNEL_NAME "lj_force"
#include "harness.h"

static void kernel(struct launch *L) {
  const float *restrict p = buf_arg(L, 0, T_F32);
  const int32_t *restrict nb = buf_arg(L, 1, T_I32), *restrict nn = buf_arg(L, 2, T_I32);
  float *restrict f = buf_arg(L, 3, T_F32);
  long n = int_arg(L, 4);
  float cut2 = f32_arg(L, 5), lj1 = f32_arg(L, 6), lj2 = f32_arg(L, 7);
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; ++i) {
    float fx = 0.0f, fy = 0.0f, fz = 0.0f;
    for (long k = 0; k < nn[i]; ++k) {
      long j = nb[k * n + i];
      float dx = p[4 * i] - p[4 * j], dy = p[4 * i + 1] - p[4 * j + 1], dz = p[4 * i + 2] - p[4 * j + 2];
      float r2 = dx * dx + dy * dy + dz * dz;
      if (r2 < cut2) {
        float r2i = 1.0f / r2, r6i = r2i * r2i * r2i, ff = r2i * r6i * (lj1 * r6i - lj2);
        fx += dx * ff; fy += dy * ff; fz += dz * ff;
      }
    }
    f[4 * i] = fx; f[4 * i + 1] = fy; f[4 * i + 2] = fz; f[4 * i + 3] = 0.0f;
  }
}
