// One Jacobi 2-D sweep (5 points, 0.2 weights) on the interior of an n x n
// grid. Launch: global (n, n), local (32, 8). Args: a, b (f32 n*n), n (i32).
__kernel void jacobi2d(__global const float *a, __global float *b, int n) {
  int j = get_global_id(0), i = get_global_id(1);
  if (i >= 1 && i < n - 1 && j >= 1 && j < n - 1)
    b[i * n + j] = 0.2f * (a[i * n + j] + a[i * n + j - 1] + a[i * n + j + 1] +
                           a[(i + 1) * n + j] + a[(i - 1) * n + j]);
}
