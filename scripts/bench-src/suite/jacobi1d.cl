// One Jacobi 1-D sweep, b[i] = (a[i-1] + a[i] + a[i+1]) / 3 inside [1, n-1).
// Launch: global (n), local (256). Args: a, b (f32 n), n (i32).
__kernel void jacobi1d(__global const float *a, __global float *b, int n) {
  int i = get_global_id(0);
  if (i > 0 && i < n - 1)
    b[i] = 0.33333f * (a[i - 1] + a[i] + a[i + 1]);
}
