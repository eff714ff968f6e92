// C[i][j] accumulated in place over k (a 2mm stage as ported from the loop
// nest), `int` ids: the element's address is gep(sext(i * n + j)) over
// truncated get_global_id, five levels deep (for remat-2d-address.test).
__kernel void acc2d(__global const float *A, __global const float *B,
                    __global float *C, int n) {
  int j = get_global_id(0), i = get_global_id(1);
  if (i < n && j < n) {
    C[i * n + j] = 0.0f;
    for (int k = 0; k < n; ++k)
      C[i * n + j] += A[i * n + k] * B[k * n + j];
  }
}
