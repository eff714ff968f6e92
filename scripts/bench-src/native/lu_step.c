/* Blocked LU trailing update over the 16-wide panel at k0: rows split between
 * threads, each row a vectorised sum of 16 axpys. Args as suite/lu_step.cl:
 * A (f32 n*n, in place), n, k0 (i32). */
#define KERNEL_NAME "lu_step"
#include "harness.h"

static void kernel(struct launch *L) {
  float *restrict A = buf_arg(L, 0, T_F32);
  long n = int_arg(L, 1), k0 = int_arg(L, 2);
#pragma omp parallel
  {
    float *s = malloc(sizeof(float) * (size_t)n);
#pragma omp for schedule(static)
    for (long i = k0 + 16; i < n; ++i) {
      for (long j = k0 + 16; j < n; ++j) s[j] = 0.0f;
      for (long k = k0; k < k0 + 16; ++k) {
        float l = A[i * n + k];
#pragma omp simd
        for (long j = k0 + 16; j < n; ++j) s[j] += l * A[k * n + j];
      }
      for (long j = k0 + 16; j < n; ++j) A[i * n + j] -= s[j];
    }
    free(s);
  }
}
