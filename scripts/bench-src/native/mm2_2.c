/* D = beta*D + tmp*C (tmp NI x NJ, C NJ x NL): i-j-l order, vectorised over
 * l. Args as suite/mm2_2.cl: tmp, C, D (f32), NI, NL, NJ (i32), beta (f32). */
#define KERNEL_NAME "mm2_2"
#include "harness.h"

static void kernel(struct launch *L) {
  const float *restrict T = buf_arg(L, 0, T_F32), *restrict C = buf_arg(L, 1, T_F32);
  float *restrict D = buf_arg(L, 2, T_F32);
  long ni = int_arg(L, 3), nl = int_arg(L, 4), nj = int_arg(L, 5);
  float beta = f32_arg(L, 6);
#pragma omp parallel for schedule(static)
  for (long i = 0; i < ni; ++i) {
    float *restrict d = D + i * nl;
    for (long l = 0; l < nl; ++l) d[l] *= beta;
    for (long j = 0; j < nj; ++j) {
      float t = T[i * nj + j];
#pragma omp simd
      for (long l = 0; l < nl; ++l) d[l] += t * C[j * nl + l];
    }
  }
}
