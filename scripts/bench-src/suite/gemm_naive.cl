// Naive GEMM, C = alpha*A*B + beta*C (row-major, A M x K, B K x N): one
// work-item per element of C, a private accumulator over k.
// Launch: global (N, M), local (16, 16). Args: A, B, C (f32), M, N, K (i32),
// alpha, beta (f32).
__kernel void gemm_naive(__global const float *A, __global const float *B,
                         __global float *C, int M, int N, int K, float alpha,
                         float beta) {
  int j = get_global_id(0), i = get_global_id(1);
  if (i >= M || j >= N)
    return;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k)
    acc += A[i * K + k] * B[k * N + j];
  C[i * N + j] = alpha * acc + beta * C[i * N + j];
}
