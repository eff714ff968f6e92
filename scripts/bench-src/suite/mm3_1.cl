// One stage of a 3mm chain (E = A*B, F = C*D, G = E*F), rectangular: E =
// A*B with A NI x NK and B NK x NJ, a private accumulator, 1-D work-groups of
// 256 along j. Launch: global (NJ, NI), local (256, 1). Args: A, B, E (f32),
// NI, NJ, NK (i32).
__kernel void mm3_1(__global const float *A, __global const float *B,
                    __global float *E, int ni, int nj, int nk) {
  int j = get_global_id(0), i = get_global_id(1);
  if (i >= ni || j >= nj)
    return;
  float s = 0.0f;
  for (int k = 0; k < nk; ++k)
    s += A[i * nk + k] * B[k * nj + j];
  E[i * nj + j] = s;
}
