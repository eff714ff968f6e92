// CSR sparse matrix-vector product, scalar form: one work-item per row.
// Launch: global (rows rounded up to 256), local (256). Args: row_ptr (i32
// rows+1), cols (i32 nnz), vals (f32 nnz), x (f32 ncols), y (f32 rows), rows
// (i32).
__kernel void spmv_scalar(__global const int *row_ptr, __global const int *cols,
                          __global const float *vals, __global const float *x,
                          __global float *y, int rows) {
  int r = get_global_id(0);
  if (r < rows) {
    float s = 0.0f;
    for (int e = row_ptr[r]; e < row_ptr[r + 1]; ++e)
      s += vals[e] * x[cols[e]];
    y[r] = s;
  }
}
