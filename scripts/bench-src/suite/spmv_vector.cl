// CSR sparse matrix-vector product, vector form: a warp of 32 work-items per
// row strides through its entries, then a tree reduction in __local memory
// with a barrier per level. Launch: global (rows*32), local (256).
// Args: as spmv_scalar.
__kernel void spmv_vector(__global const int *row_ptr, __global const int *cols,
                          __global const float *vals, __global const float *x,
                          __global float *y, int rows) {
  __local float sd[256];
  int lid = get_local_id(0), lane = lid & 31;
  int r = get_global_id(0) / 32;
  float s = 0.0f;
  if (r < rows)
    for (int e = row_ptr[r] + lane; e < row_ptr[r + 1]; e += 32)
      s += vals[e] * x[cols[e]];
  sd[lid] = s;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int off = 16; off > 0; off >>= 1) {
    if (lane < off)
      sd[lid] += sd[lid + off];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lane == 0 && r < rows)
    y[r] = sd[lid];
}
