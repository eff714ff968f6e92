/* c = a + b. Args as vecadd.cl: a, b, c (buf f32), n (i32). */
#define KERNEL_NAME "vecadd"
#include "harness.h"

static void kernel(struct launch *L) {
  const float *restrict a = buf_arg(L, 0, T_F32);
  const float *restrict b = buf_arg(L, 1, T_F32);
  float *restrict c = buf_arg(L, 2, T_F32);
  long n = int_arg(L, 3);
#pragma omp parallel for simd schedule(static)
  for (long i = 0; i < n; ++i)
    c[i] = a[i] + b[i];
}
