// Radix-4 decimation-in-time FFT of 1024-point complex blocks (float2), one
// block per work-group of 256: a base-4 digit-reversed load into __local
// memory, then 5 radix-4 butterfly stages exchanging through it, a barrier
// per stage. Launch: global (blocks*256), local (256). Args: in, out (f32
// 2*blocks*1024, read as float2).
#define N 1024
float2 cmul(float2 a, float c, float s) {
  return (float2)(a.x * c - a.y * s, a.x * s + a.y * c);
}
__kernel void fft_r4(__global const float2 *in, __global float2 *out) {
  __local float2 x[N];
  int t = get_local_id(0);
  int base = get_group_id(0) * N;
  for (int k = t; k < N; k += N / 4) {
    int r = 0;
    for (int d = 0; d < 5; ++d)
      r |= ((k >> (2 * d)) & 3) << (8 - 2 * d);
    x[r] = in[base + k];
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int q = 1; q < N; q <<= 2) {
    int j = t & (q - 1);
    int i0 = (t - j) * 4 + j;
    float ang = -2.0f * M_PI_F * (float)j / (float)(4 * q);
    float2 a0 = x[i0];
    float2 a1 = cmul(x[i0 + q], cos(ang), sin(ang));
    float2 a2 = cmul(x[i0 + 2 * q], cos(2.0f * ang), sin(2.0f * ang));
    float2 a3 = cmul(x[i0 + 3 * q], cos(3.0f * ang), sin(3.0f * ang));
    float2 s02 = a0 + a2, d02 = a0 - a2, s13 = a1 + a3, d13 = a1 - a3;
    float2 md13 = (float2)(d13.y, -d13.x); /* -i * (a1 - a3) */
    x[i0] = s02 + s13;
    x[i0 + q] = d02 + md13;
    x[i0 + 2 * q] = s02 - s13;
    x[i0 + 3 * q] = d02 - md13;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  for (int k = t; k < N; k += N / 4)
    out[base + k] = x[k];
}
