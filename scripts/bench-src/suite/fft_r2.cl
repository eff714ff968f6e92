// Radix-2 decimation-in-time FFT of 1024-point complex blocks (float2), one
// block per work-group of 512: a bit-reversed load into __local memory, then
// 10 butterfly stages exchanging through it, twiddles from cos/sin, a barrier
// per stage. Launch: global (blocks*512), local (512). Args: in, out (f32
// 2*blocks*1024, read as float2).
#define N 1024
__kernel void fft_r2(__global const float2 *in, __global float2 *out) {
  __local float2 x[N];
  int t = get_local_id(0);
  int base = get_group_id(0) * N;
  for (int k = t; k < N; k += N / 2) {
    int r = 0;
    for (int b = 0; b < 10; ++b)
      r |= ((k >> b) & 1) << (9 - b);
    x[r] = in[base + k];
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int hs = 1; hs < N; hs <<= 1) {
    int j = t & (hs - 1);
    int i0 = (t - j) * 2 + j;
    float ang = -M_PI_F * (float)j / (float)hs;
    float c = cos(ang), s = sin(ang);
    float2 a = x[i0], b = x[i0 + hs];
    float2 bw = (float2)(b.x * c - b.y * s, b.x * s + b.y * c);
    x[i0] = a + bw;
    x[i0 + hs] = a - bw;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  out[base + t] = x[t];
  out[base + t + N / 2] = x[t + N / 2];
}
