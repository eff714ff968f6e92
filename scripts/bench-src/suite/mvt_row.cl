// MVT first product, x1 += A*y1, one work-item per row, the sum added to the
// global x1 at the end. Launch: global (N), local (64). Args: A (f32 N x N),
// y1, x1 (f32 N), N (i32).
__kernel void mvt_row(__global const float *A, __global const float *y1,
                      __global float *x1, int n) {
  int i = get_global_id(0);
  if (i < n) {
    float s = 0.0f;
    for (int j = 0; j < n; ++j)
      s += A[i * n + j] * y1[j];
    x1[i] += s;
  }
}
