/* FDTD-2D E_y update. Args as suite/fdtd_ey.cl: fict, ey, hz (f32), NX, NY,
 * t (i32). */
#define KERNEL_NAME "fdtd_ey"
#include "harness.h"

static void kernel(struct launch *L) {
  const float *restrict fict = buf_arg(L, 0, T_F32), *restrict hz = buf_arg(L, 2, T_F32);
  float *restrict ey = buf_arg(L, 1, T_F32);
  long nx = int_arg(L, 3), ny = int_arg(L, 4), t = int_arg(L, 5);
  for (long j = 0; j < ny; ++j) ey[j] = fict[t];
#pragma omp parallel for schedule(static)
  for (long i = 1; i < nx; ++i)
#pragma omp simd
    for (long j = 0; j < ny; ++j) ey[i * ny + j] = ey[i * ny + j] - 0.5f * (hz[i * ny + j] - hz[(i - 1) * ny + j]);
}
