/* tmp = alpha*A*B (A NI x NK, B NK x NJ): i-k-j, each term alpha*a*b added
 * to the row of tmp as the kernel adds it. Args as suite/mm2_1.cl. */
#define KERNEL_NAME "mm2_1"
#include "harness.h"

static void kernel(struct launch *L) {
  const float *restrict A = buf_arg(L, 0, T_F32), *restrict B = buf_arg(L, 1, T_F32);
  float *restrict T = buf_arg(L, 2, T_F32);
  long ni = int_arg(L, 3), nj = int_arg(L, 4), nk = int_arg(L, 5);
  float alpha = f32_arg(L, 6);
#pragma omp parallel for schedule(static)
  for (long i = 0; i < ni; ++i) {
    float *restrict t = T + i * nj;
    for (long j = 0; j < nj; ++j) t[j] = 0.0f;
    for (long k = 0; k < nk; ++k) {
      float a = alpha * A[i * nk + k];
#pragma omp simd
      for (long j = 0; j < nj; ++j) t[j] += a * B[k * nj + j];
    }
  }
}
