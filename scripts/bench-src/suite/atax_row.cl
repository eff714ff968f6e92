// ATAX first half, tmp = A*x: one work-item per row, each walks its own row
// (row access: consecutive work-items read addresses N apart).
// Launch: global (M), local (128). Args: A (f32 M x N), x (f32 N), tmp (f32
// M), M, N (i32).
__kernel void atax_row(__global const float *A, __global const float *x,
                       __global float *tmp, int m, int n) {
  int i = get_global_id(0);
  if (i < m) {
    float s = 0.0f;
    for (int j = 0; j < n; ++j)
      s += A[i * n + j] * x[j];
    tmp[i] = s;
  }
}
