/* y = A^T*tmp: each thread takes a block of 512 columns and walks the rows,
 * a vectorised axpy per row into its block of y. Args as suite/atax_col.cl:
 * A (f32 M x N), tmp, y (f32), M, N (i32). */
#define KERNEL_NAME "atax_col"
#include "harness.h"

static void kernel(struct launch *L) {
  const float *restrict A = buf_arg(L, 0, T_F32), *restrict t = buf_arg(L, 1, T_F32);
  float *restrict y = buf_arg(L, 2, T_F32);
  long m = int_arg(L, 3), n = int_arg(L, 4);
#pragma omp parallel for schedule(static)
  for (long j0 = 0; j0 < n; j0 += 512) {
    long j1 = j0 + 512 < n ? j0 + 512 : n;
    for (long j = j0; j < j1; ++j) y[j] = 0.0f;
    for (long i = 0; i < m; ++i) {
      float ti = t[i];
#pragma omp simd
      for (long j = j0; j < j1; ++j) y[j] += A[i * n + j] * ti;
    }
  }
}
