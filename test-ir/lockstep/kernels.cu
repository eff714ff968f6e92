// A CUDA grid-stride loop (lockstep.test); integers, so that the host's
// FMA contraction cannot make it differ from the emulator.
extern "C" __global__ void saxpy_grid(int n, int a, const int *x, int *y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    y[i] = a * x[i] + y[i];
}
