/* C = alpha*A*B + beta*C (row-major): the i-k-j order (unit stride over B
 * and the row of sums, vectorised), rows split between threads. Args as
 * suite/gemm_naive.cl: A, B, C (f32), M, N, K (i32), alpha, beta (f32). */
#define KERNEL_NAME "gemm_naive"
#include "harness.h"

static void kernel(struct launch *L) {
  const float *restrict A = buf_arg(L, 0, T_F32), *restrict B = buf_arg(L, 1, T_F32);
  float *restrict C = buf_arg(L, 2, T_F32);
  long M = int_arg(L, 3), N = int_arg(L, 4), K = int_arg(L, 5);
  float alpha = f32_arg(L, 6), beta = f32_arg(L, 7);
#pragma omp parallel
  {
    float *acc = malloc(sizeof(float) * (size_t)N);
#pragma omp for schedule(static)
    for (long i = 0; i < M; ++i) {
      for (long j = 0; j < N; ++j) acc[j] = 0.0f;
      for (long k = 0; k < K; ++k) {
        float a = A[i * K + k];
        const float *restrict b = B + k * N;
#pragma omp simd
        for (long j = 0; j < N; ++j) acc[j] += a * b[j];
      }
      for (long j = 0; j < N; ++j) C[i * N + j] = alpha * acc[j] + beta * C[i * N + j];
    }
    free(acc);
  }
}
