/* x1 += A*y1: a vectorised dot product per row. Args as suite/mvt_row.cl. */
#define KERNEL_NAME "mvt_row"
#include "harness.h"

static void kernel(struct launch *L) {
  const float *restrict A = buf_arg(L, 0, T_F32), *restrict y = buf_arg(L, 1, T_F32);
  float *restrict x = buf_arg(L, 2, T_F32);
  long n = int_arg(L, 3);
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; ++i) {
    float s = 0.0f;
#pragma omp simd reduction(+ : s)
    for (long j = 0; j < n; ++j) s += A[i * n + j] * y[j];
    x[i] += s;
  }
}
