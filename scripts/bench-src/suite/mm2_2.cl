// Second product of a 2mm chain, D = beta*D + tmp*C (tmp NI x NJ, C NJ x NL),
// accumulated in place in D: D[i][l] *= beta; D[i][l] += tmp[i][j]*C[j][l].
// Launch: global (NL, NI), local (32, 8). Args: tmp, C, D (f32), NI, NL, NJ
// (i32), beta (f32).
__kernel void mm2_2(__global const float *tmp, __global const float *C,
                    __global float *D, int ni, int nl, int nj, float beta) {
  int l = get_global_id(0), i = get_global_id(1);
  if (i < ni && l < nl) {
    D[i * nl + l] *= beta;
    for (int j = 0; j < nj; ++j)
      D[i * nl + l] += tmp[i * nj + j] * C[j * nl + l];
  }
}
