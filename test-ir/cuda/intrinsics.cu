// Integer and reinterpretation intrinsics, four results per thread.
__global__ void intrinsics(const unsigned *in, int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned u = in[i];
  out[4 * i + 0] = __popc(u) + 100 * __clz((int)u);
  out[4 * i + 1] = (int)__brev(u);
  out[4 * i + 2] = __mul24((int)u, i - 50) + __ffs((int)u);
  out[4 * i + 3] = (int)__umulhi(u, 0x9e3779b9u) ^ __float_as_int(__int_as_float(i)) ^ __float2int_rn((float)(u & 0xffff) * 0.5f);
}
