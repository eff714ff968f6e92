// Tiled matrix multiply C = A * B (row-major; A is M x K, B is K x N, C is
// M x N): 2-D launch, 16x16 tiles of A and B in __local arrays declared in the
// kernel (addrspace(3) globals in the IR), two barriers in a loop over the
// tiles, zero padding for sizes that are not multiples of 16.
// Launch: 2-D, global = (N, M) rounded up to multiples of 16, local = (16, 16)
// (the tile size: no other local size is legal).
// Args: A (buf f32 M*K), B (buf f32 K*N), C (buf f32 M*N), M, N, K (i32).
#define TILE 16

__kernel void matmul(__global const float *A, __global const float *B,
                     __global float *C, int M, int N, int K) {
  __local float As[TILE][TILE];
  __local float Bs[TILE][TILE];
  int tx = get_local_id(0), ty = get_local_id(1);
  int col = get_global_id(0), row = get_global_id(1);
  float acc = 0.0f;
  for (int t = 0; t < K; t += TILE) {
    As[ty][tx] = (row < M && t + tx < K) ? A[row * K + t + tx] : 0.0f;
    Bs[ty][tx] = (t + ty < K && col < N) ? B[(t + ty) * N + col] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = 0; k < TILE; ++k)
      acc += As[ty][k] * Bs[k][tx];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (row < M && col < N)
    C[row * N + col] = acc;
}
