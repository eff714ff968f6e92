// First product of a 2mm chain, tmp = alpha*A*B (A NI x NK, B NK x NJ),
// accumulated in place in the global result as a straightforward port of the
// loop nest would: tmp[i][j] = 0; tmp[i][j] += alpha*A[i][k]*B[k][j].
// Launch: global (NJ, NI), local (32, 8). Args: A, B, tmp (f32), NI, NJ, NK
// (i32), alpha (f32).
__kernel void mm2_1(__global const float *A, __global const float *B,
                    __global float *tmp, int ni, int nj, int nk, float alpha) {
  int j = get_global_id(0), i = get_global_id(1);
  if (i < ni && j < nj) {
    tmp[i * nj + j] = 0.0f;
    for (int k = 0; k < nk; ++k)
      tmp[i * nj + j] += alpha * A[i * nk + k] * B[k * nj + j];
  }
}
