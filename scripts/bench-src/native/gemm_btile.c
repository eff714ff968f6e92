/* C = A*B (row-major, A M x K, B K x N), as native/matmul.c: the i-k-j order,
 * vectorised over j, rows split between threads (the same product that
 * suite/gemm_btile.cl computes with its tiles). Args: A, B, C (f32), M, N, K (i32). */
#define KERNEL_NAME "gemm_btile"
#include "harness.h"

static void kernel(struct launch *L) {
  const float *restrict A = buf_arg(L, 0, T_F32), *restrict B = buf_arg(L, 1, T_F32);
  float *restrict C = buf_arg(L, 2, T_F32);
  long M = int_arg(L, 3), N = int_arg(L, 4), K = int_arg(L, 5);
#pragma omp parallel for schedule(static)
  for (long i = 0; i < M; ++i) {
    float *restrict c = C + i * N;
    for (long j = 0; j < N; ++j) c[j] = 0.0f;
    for (long k = 0; k < K; ++k) {
      float a = A[i * K + k];
      const float *restrict b = B + k * N;
#pragma omp simd
      for (long j = 0; j < N; ++j) c[j] += a * b[j];
    }
  }
}
