/* y = a * x + y. Args as saxpy.cl: n (i32), a (f32), x, y (buf f32). */
#define KERNEL_NAME "saxpy"
#include "harness.h"

static void kernel(struct launch *L) {
  long n = int_arg(L, 0);
  float a = f32_arg(L, 1);
  const float *restrict x = buf_arg(L, 2, T_F32);
  float *restrict y = buf_arg(L, 3, T_F32);
#pragma omp parallel for simd schedule(static)
  for (long i = 0; i < n; ++i)
    y[i] = a * x[i] + y[i];
}
