// Tiled GEMM, C = A*B (row-major, A M x K, B K x N), with a [4][16] __local
// tile of B and a [16][4] tile of A per step of 4 along k: a work-group of
// 16x4 work-items computes a 16x16 tile of C, each work-item 4 rows of one
// column (private float c[4]).
// Launch: global (N, M/4), local (16, 4); M, N % 16 == 0, K % 4 == 0.
// Args: A, B, C (f32), M, N, K (i32).
__kernel void gemm_btile(__global const float *A, __global const float *B,
                         __global float *C, int M, int N, int K) {
  __local float Bs[4][16];
  __local float As[16][4];
  int lx = get_local_id(0), ly = get_local_id(1);
  int col = get_group_id(0) * 16 + lx;
  int row0 = get_group_id(1) * 16;
  float c[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  for (int k = 0; k < K; k += 4) {
    Bs[ly][lx] = B[(k + ly) * N + col];
    As[lx][ly] = A[(row0 + lx) * K + k + ly];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int kk = 0; kk < 4; ++kk) {
      float b = Bs[kk][lx];
      for (int r = 0; r < 4; ++r)
        c[r] += As[ly + 4 * r][kk] * b;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  for (int r = 0; r < 4; ++r)
    C[(row0 + ly + 4 * r) * N + col] = c[r];
}
