// Dynamic shared memory: `extern __shared__`, sized by the launch
// (`simt-run --shared-bytes`, CUDA's third <<<>>> argument): two arrays at
// one address, as in CUDA; each block reverses its slice.
extern __shared__ float buf[];
extern __shared__ int ibuf[];
__global__ void reverse(const float *in, float *out) {
  int t = threadIdx.x, n = blockDim.x, base = blockIdx.x * n;
  buf[t] = in[base + t];
  __syncthreads();
  float v = buf[n - 1 - t];
  __syncthreads();
  ibuf[t] = __float_as_int(v);
  __syncthreads();
  out[base + t] = __int_as_float(ibuf[t]);
}
