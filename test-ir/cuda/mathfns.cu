// The math API on host and emulator: fast forms, rsqrtf, sincosf, powf,
// min/max/abs overloads, double sqrt, __ldg and a fence.
__global__ void mathfns(const float *x, float *y, double *z, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float a = __ldg(&x[i]);
  float s, c;
  sincosf(a, &s, &c);
  float *o = y + 6 * i;
  o[0] = __expf(a) + expf(-a);
  o[1] = rsqrtf(a + 1.0f);
  o[2] = __powf(a, 1.5f) + powf(a, 0.25f);
  o[3] = __log2f(a + 1.0f) + logf(a + 2.0f);
  o[4] = s + c;
  o[5] = fminf(a, 0.5f) + max(a, 0.25f) + (float)abs(i - 40) + (float)min(i, 7);
  z[i] = sqrt((double)a) + fma((double)a, 2.0, 1.0);
  __threadfence();
}
