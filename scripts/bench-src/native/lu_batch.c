/* Doolittle LU without pivoting of each 32x32 matrix, matrices split between
 * threads, the row updates vectorised. Args as suite/lu_batch.cl. */
#define KERNEL_NAME "lu_batch"
#include "harness.h"

static void kernel(struct launch *L) {
  float *restrict mats = buf_arg(L, 0, T_F32);
  long batch = (long)buf_count(L, 0) / 1024;
#pragma omp parallel for schedule(static)
  for (long b = 0; b < batch; ++b) {
    float *m = mats + b * 1024;
    for (int k = 0; k < 31; ++k)
      for (int i = k + 1; i < 32; ++i) {
        float l = m[i * 32 + k] / m[k * 32 + k];
        m[i * 32 + k] = l;
#pragma omp simd
        for (int j = k + 1; j < 32; ++j) m[i * 32 + j] -= l * m[k * 32 + j];
      }
  }
}
