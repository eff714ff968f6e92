// MVT second product, x2 += A^T*y2, one work-item per column, accumulating
// straight into the global x2[j] inside the loop.
// Launch: global (N), local (64). Args: A (f32 N x N), y2, x2 (f32 N), N (i32).
__kernel void mvt_col(__global const float *A, __global const float *y2,
                      __global float *x2, int n) {
  int j = get_global_id(0);
  if (j < n)
    for (int i = 0; i < n; ++i)
      x2[j] += A[i * n + j] * y2[i];
}
