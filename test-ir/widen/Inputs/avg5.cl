// The mean of a point and its four neighbours on the interior of a w x h
// grid, indexed with `int` (b[y * w + x]). Launch: global (w, h).
__kernel void avg5(__global const float *a, __global float *b, int w, int h) {
  int x = get_global_id(0), y = get_global_id(1);
  if (x >= 1 && x < w - 1 && y >= 1 && y < h - 1)
    b[y * w + x] = 0.2f * (a[y * w + x] + a[y * w + x - 1] + a[y * w + x + 1] +
                           a[(y - 1) * w + x] + a[(y + 1) * w + x]);
}
