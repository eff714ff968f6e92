// Vector add, c = a + b: the simplest kernel; a bounds check on n, no barrier.
// Launch: 1-D, global = n rounded up to a multiple of local (e.g. 65536),
// local = any (64, 128, 256). Args: a (buf f32 n), b (buf f32 n), c (buf f32 n), n (i32).
__kernel void vecadd(__global const float *a, __global const float *b,
                     __global float *c, int n) {
  int i = get_global_id(0);
  if (i < n)
    c[i] = a[i] + b[i];
}
