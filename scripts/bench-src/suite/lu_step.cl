// One step of a blocked LU factorisation: the trailing-submatrix update
// A[i][j] -= sum_k L[i][k] U[k][j] over the 16-wide panel at k0, with the
// panel's 16x16 tiles of L and U staged in __local memory.
// Launch: global (n-k0-16, n-k0-16), local (16, 16). Args: A (f32 n*n, in
// place), n, k0 (i32).
#define B 16
__kernel void lu_step(__global float *A, int n, int k0) {
  __local float Lt[B][B];
  __local float Ut[B][B];
  int tx = get_local_id(0), ty = get_local_id(1);
  int j = k0 + B + get_global_id(0), i = k0 + B + get_global_id(1);
  Lt[ty][tx] = A[i * n + k0 + tx];
  Ut[ty][tx] = A[(k0 + ty) * n + j];
  barrier(CLK_LOCAL_MEM_FENCE);
  float s = 0.0f;
  for (int k = 0; k < B; ++k)
    s += Lt[ty][k] * Ut[k][tx];
  A[i * n + j] -= s;
}
