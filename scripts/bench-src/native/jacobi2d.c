/* One Jacobi 2-D sweep. Args as suite/jacobi2d.cl: a, b (f32 n*n), n (i32). */
#define KERNEL_NAME "jacobi2d"
#include "harness.h"

static void kernel(struct launch *L) {
  const float *restrict a = buf_arg(L, 0, T_F32);
  float *restrict b = buf_arg(L, 1, T_F32);
  long n = int_arg(L, 2);
#pragma omp parallel for schedule(static)
  for (long i = 1; i < n - 1; ++i)
#pragma omp simd
    for (long j = 1; j < n - 1; ++j)
      b[i * n + j] = 0.2f * (a[i * n + j] + a[i * n + j - 1] + a[i * n + j + 1] +
                             a[(i + 1) * n + j] + a[(i - 1) * n + j]);
}
