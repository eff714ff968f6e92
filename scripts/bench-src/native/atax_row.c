/* tmp = A*x: a vectorised dot product per row, rows split between threads.
 * Args as suite/atax_row.cl: A (f32 M x N), x, tmp (f32), M, N (i32). */
#define KERNEL_NAME "atax_row"
#include "harness.h"

static void kernel(struct launch *L) {
  const float *restrict A = buf_arg(L, 0, T_F32), *restrict x = buf_arg(L, 1, T_F32);
  float *restrict t = buf_arg(L, 2, T_F32);
  long m = int_arg(L, 3), n = int_arg(L, 4);
#pragma omp parallel for schedule(static)
  for (long i = 0; i < m; ++i) {
    float s = 0.0f;
#pragma omp simd reduction(+ : s)
    for (long j = 0; j < n; ++j) s += A[i * n + j] * x[j];
    t[i] = s;
  }
}
