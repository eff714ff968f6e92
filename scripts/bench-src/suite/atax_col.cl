// ATAX second half, y = A^T*tmp: one work-item per column, walking down it
// (column access: consecutive work-items read consecutive addresses).
// Launch: global (N), local (128). Args: A (f32 M x N), tmp (f32 M), y (f32
// N), M, N (i32).
__kernel void atax_col(__global const float *A, __global const float *tmp,
                       __global float *y, int m, int n) {
  int j = get_global_id(0);
  if (j < n) {
    float s = 0.0f;
    for (int i = 0; i < m; ++i)
      s += A[i * n + j] * tmp[i];
    y[j] = s;
  }
}
