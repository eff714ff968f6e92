/* x2 += A^T*y2: blocks of 512 columns per thread, a vectorised axpy per row
 * into x2's block. Args as suite/mvt_col.cl. */
#define KERNEL_NAME "mvt_col"
#include "harness.h"

static void kernel(struct launch *L) {
  const float *restrict A = buf_arg(L, 0, T_F32), *restrict y = buf_arg(L, 1, T_F32);
  float *restrict x = buf_arg(L, 2, T_F32);
  long n = int_arg(L, 3);
#pragma omp parallel for schedule(static)
  for (long j0 = 0; j0 < n; j0 += 512) {
    long j1 = j0 + 512 < n ? j0 + 512 : n;
    for (long i = 0; i < n; ++i) {
      float yi = y[i];
#pragma omp simd
      for (long j = j0; j < j1; ++j) x[j] += A[i * n + j] * yi;
    }
  }
}
