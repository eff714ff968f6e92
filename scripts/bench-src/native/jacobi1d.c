/* One Jacobi 1-D sweep. Args as suite/jacobi1d.cl: a, b (f32 n), n (i32). */
#define KERNEL_NAME "jacobi1d"
#include "harness.h"

static void kernel(struct launch *L) {
  const float *restrict a = buf_arg(L, 0, T_F32);
  float *restrict b = buf_arg(L, 1, T_F32);
  long n = int_arg(L, 2);
#pragma omp parallel for simd schedule(static)
  for (long i = 1; i < n - 1; ++i) b[i] = 0.33333f * (a[i - 1] + a[i] + a[i + 1]);
}
