// Register-blocked tiled GEMM, C = A*B (row-major, A M x K, B K x N): a
// work-group of 16x4 work-items computes a 64x16 tile of C; each work-item
// owns one row of the tile, its 16 results in a private float c[16], and
// prefetches 4 values of its row of A into a private float a[4] per k step.
// B's 16x16 tile sits in __local memory padded to [16][17]; a do-while loop
// over k with two barriers per step.
// Launch: global (N, M/16), local (16, 4); M % 64 == 0, N % 16 == 0,
// K % 16 == 0. Args: A, B, C (f32), M, N, K (i32).
#define TN 16
#define TK 16
__kernel void gemm_regblock(__global const float *A, __global const float *B,
                            __global float *C, int M, int N, int K) {
  __local float Bs[TK][TN + 1];
  int lx = get_local_id(0), ly = get_local_id(1);
  int lid = ly * get_local_size(0) + lx;
  int row = get_group_id(1) * 64 + lid;
  int col0 = get_group_id(0) * TN;
  float c[TN];
  for (int j = 0; j < TN; ++j)
    c[j] = 0.0f;
  __global const float *arow = A + row * K;
  int k = 0;
  do {
    for (int r = ly; r < TK; r += 4)
      Bs[r][lx] = B[(k + r) * N + col0 + lx];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int kk = 0; kk < TK; kk += 4) {
      float a[4];
      for (int t = 0; t < 4; ++t)
        a[t] = arow[k + kk + t];
      for (int t = 0; t < 4; ++t)
        for (int j = 0; j < TN; ++j)
          c[j] += a[t] * Bs[kk + t][j];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    k += TK;
  } while (k < K);
  for (int j = 0; j < TN; ++j)
    C[row * N + col0 + j] = c[j];
}
