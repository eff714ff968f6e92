/* Covariance of the columns: for each j1 (threads take them dynamically,
 * the work is triangular) a vectorised row of sums over j2 >= j1, updated
 * row by row of the data; then both halves written. Args as suite/covar.cl:
 * data (f32 M x N), cov (f32 N x N), M, N (i32). */
#define KERNEL_NAME "covar"
#include "harness.h"

static void kernel(struct launch *L) {
  const float *restrict d = buf_arg(L, 0, T_F32);
  float *restrict cov = buf_arg(L, 1, T_F32);
  long m = int_arg(L, 2), n = int_arg(L, 3);
#pragma omp parallel
  {
    float *acc = malloc(sizeof(float) * (size_t)n);
#pragma omp for schedule(dynamic, 4)
    for (long j1 = 0; j1 < n; ++j1) {
      for (long j2 = j1; j2 < n; ++j2) acc[j2] = 0.0f;
      for (long i = 0; i < m; ++i) {
        float a = d[i * n + j1];
#pragma omp simd
        for (long j2 = j1; j2 < n; ++j2) acc[j2] += a * d[i * n + j2];
      }
      for (long j2 = j1; j2 < n; ++j2) {
        float s = acc[j2] / (float)(m - 1);
        cov[j1 * n + j2] = s;
        cov[j2 * n + j1] = s;
      }
    }
    free(acc);
  }
}
