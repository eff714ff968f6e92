/* FDTD-2D H_z update. Args as suite/fdtd_hz.cl: ex, ey, hz (f32), NX, NY. */
#define KERNEL_NAME "fdtd_hz"
#include "harness.h"

static void kernel(struct launch *L) {
  const float *restrict ex = buf_arg(L, 0, T_F32), *restrict ey = buf_arg(L, 1, T_F32);
  float *restrict hz = buf_arg(L, 2, T_F32);
  long nx = int_arg(L, 3), ny = int_arg(L, 4);
#pragma omp parallel for schedule(static)
  for (long i = 0; i < nx - 1; ++i)
#pragma omp simd
    for (long j = 0; j < ny - 1; ++j)
      hz[i * ny + j] -= 0.7f * (ex[i * ny + j + 1] - ex[i * ny + j] + ey[(i + 1) * ny + j] - ey[i * ny + j]);
}
