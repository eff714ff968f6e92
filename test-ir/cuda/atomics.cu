// Every CUDA atomic once per thread, on global and on shared memory.
// g: int[8], u: unsigned[5], l: unsigned long long[1], f: float[1], d: double[1].
__global__ void atomics(int *g, unsigned *u, unsigned long long *l, float *f, double *d) {
  __shared__ int s[2];
  __shared__ unsigned su[1];
  int t = threadIdx.x;
  if (t == 0) { s[0] = 0; s[1] = 1000; su[0] = 0; }
  __syncthreads();
  atomicAdd(&g[0], 1);
  atomicSub(&g[1], 2);
  atomicMin(&g[2], t - 10);
  atomicMax(&g[3], t);
  atomicExch(&g[4], 3);
  atomicCAS(&g[5], 0, 7);
  atomicInc(&u[0], 5u);
  atomicDec(&u[1], 5u);
  atomicAnd(&u[2], ~(1u << (t & 31)));
  atomicOr(&u[3], 1u << (t & 31));
  atomicXor(&u[4], (unsigned)((blockIdx.x * blockDim.x + t) * (blockIdx.x * blockDim.x + t)));
  atomicAdd(l, 1ull << 33);
  atomicAdd(f, 0.5f);
  atomicAdd(d, 0.25);
  atomicAdd(&s[0], t);
  atomicMin(&s[1], t);
  atomicInc(&su[0], 1000u);
  __syncthreads();
  if (t == 0) {
    atomicAdd(&g[6], s[0] + s[1]);
    atomicAdd(&g[7], (int)su[0]);
  }
}
