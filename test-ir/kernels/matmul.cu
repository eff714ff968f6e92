// Tiled matrix multiply in CUDA, C = A * B (row-major; A is M x K, B is K x N):
// 2-D grid, 16x16 tiles in static __shared__ arrays, two __syncthreads() per
// tile in a loop, zero padding at the edges.
// Launch: 2-D, block = (16, 16) (the tile size), grid = (ceil(N/16), ceil(M/16)).
// Args: A (buf f32 M*K), B (buf f32 K*N), C (buf f32 M*N), M, N, K (i32).
#define TILE 16

extern "C" __global__ void matmul(const float *A, const float *B, float *C,
                                  int M, int N, int K) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  int tx = threadIdx.x, ty = threadIdx.y;
  int col = blockIdx.x * TILE + tx;
  int row = blockIdx.y * TILE + ty;
  float acc = 0.0f;
  for (int t = 0; t < K; t += TILE) {
    As[ty][tx] = (row < M && t + tx < K) ? A[row * K + t + tx] : 0.0f;
    Bs[ty][tx] = (t + ty < K && col < N) ? B[(t + ty) * N + col] : 0.0f;
    __syncthreads();
    for (int k = 0; k < TILE; ++k)
      acc += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  if (row < M && col < N)
    C[row * N + col] = acc;
}
