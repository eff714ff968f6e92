// Batched LU factorisation (Doolittle, no pivoting) of 32x32 matrices, one
// per work-group of 32 work-items: the matrix is staged in __local memory,
// work-item i owns row i, one barrier per pivot step. Inputs must not need
// pivoting (the bench's are diagonally dominant).
// Launch: global (batch*32), local (32). Args: mats (f32 batch*1024, in place).
#define N 32
__kernel void lu_batch(__global float *mats) {
  __local float M[N][N + 1];
  int i = get_local_id(0);
  __global float *m = mats + get_group_id(0) * N * N;
  for (int j = 0; j < N; ++j)
    M[i][j] = m[i * N + j];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int k = 0; k < N - 1; ++k) {
    if (i > k) {
      float l = M[i][k] / M[k][k];
      M[i][k] = l;
      for (int j = k + 1; j < N; ++j)
        M[i][j] -= l * M[k][j];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  for (int j = 0; j < N; ++j)
    m[i * N + j] = M[i][j];
}
