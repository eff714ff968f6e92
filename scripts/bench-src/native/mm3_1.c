/* E = A*B (A NI x NK, B NK x NJ): i-k-j, vectorised over j, rows split
 * between threads. Args as suite/mm3_1.cl. */
#define KERNEL_NAME "mm3_1"
#include "harness.h"

static void kernel(struct launch *L) {
  const float *restrict A = buf_arg(L, 0, T_F32), *restrict B = buf_arg(L, 1, T_F32);
  float *restrict E = buf_arg(L, 2, T_F32);
  long ni = int_arg(L, 3), nj = int_arg(L, 4), nk = int_arg(L, 5);
#pragma omp parallel for schedule(static)
  for (long i = 0; i < ni; ++i) {
    float *restrict e = E + i * nj;
    for (long j = 0; j < nj; ++j) e[j] = 0.0f;
    for (long k = 0; k < nk; ++k) {
      float a = A[i * nk + k];
#pragma omp simd
      for (long j = 0; j < nj; ++j) e[j] += a * B[k * nj + j];
    }
  }
}
