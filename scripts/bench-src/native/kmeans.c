/* k-means assignment: blocks of 256 points split between threads; the squared
 * distance of the block to each centre (vectorised over the points), first
 * minimum kept. Args as suite/kmeans.cl:
 * feat (f32 nf*n, feature-major), centres (f32 k*nf), member (i32), n, k, nf. */
#define KERNEL_NAME "kmeans"
#include "harness.h"
#include <float.h>

static void kernel(struct launch *L) {
  const float *restrict f = buf_arg(L, 0, T_F32), *restrict c = buf_arg(L, 1, T_F32);
  int32_t *restrict mem = buf_arg(L, 2, T_I32);
  long n = int_arg(L, 3), k = int_arg(L, 4), nf = int_arg(L, 5);
#pragma omp parallel for schedule(static)
  for (long i0 = 0; i0 < n; i0 += 256) {
    long m = n - i0 < 256 ? n - i0 : 256;
    float bestd[256], d[256];
    int best[256];
    for (long i = 0; i < m; ++i) { bestd[i] = FLT_MAX; best[i] = 0; }
    for (long q = 0; q < k; ++q) {
      for (long i = 0; i < m; ++i) d[i] = 0.0f;
      for (long t = 0; t < nf; ++t) {
        float ct = c[q * nf + t];
        const float *restrict ft = f + t * n + i0;
#pragma omp simd
        for (long i = 0; i < m; ++i) d[i] += (ft[i] - ct) * (ft[i] - ct);
      }
      for (long i = 0; i < m; ++i)
        if (d[i] < bestd[i]) { bestd[i] = d[i]; best[i] = (int)q; }
    }
    for (long i = 0; i < m; ++i) mem[i0 + i] = best[i];
  }
}
