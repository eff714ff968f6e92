/* Correlation matrix: as native/covar.c on the centred columns, scaled as
 * suite/corr.cl scales them. Args: data (f32 M x N), mean, stddev (f32 N),
 * corr (f32 N x N), M, N (i32). */
#define KERNEL_NAME "corr"
#include "harness.h"

static void kernel(struct launch *L) {
  const float *restrict d = buf_arg(L, 0, T_F32), *restrict mean = buf_arg(L, 1, T_F32);
  const float *restrict sd = buf_arg(L, 2, T_F32);
  float *restrict corr = buf_arg(L, 3, T_F32);
  long m = int_arg(L, 4), n = int_arg(L, 5);
#pragma omp parallel
  {
    float *acc = malloc(sizeof(float) * (size_t)n);
#pragma omp for schedule(dynamic, 4)
    for (long j1 = 0; j1 < n; ++j1) {
      for (long j2 = j1 + 1; j2 < n; ++j2) acc[j2] = 0.0f;
      for (long i = 0; i < m; ++i) {
        float a = d[i * n + j1] - mean[j1];
#pragma omp simd
        for (long j2 = j1 + 1; j2 < n; ++j2) acc[j2] += a * (d[i * n + j2] - mean[j2]);
      }
      corr[j1 * n + j1] = 1.0f;
      for (long j2 = j1 + 1; j2 < n; ++j2) {
        float s = acc[j2] / ((float)m * (sd[j1] + 0.5f) * (sd[j2] + 0.5f));
        corr[j1 * n + j2] = s;
        corr[j2 * n + j1] = s;
      }
    }
    free(acc);
  }
}
