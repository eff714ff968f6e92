// 2-D 3x3 convolution with constant weights on the interior of a W x H
// image (the border is left alone). Launch: global (W, H), local (32, 8).
// Args: in, out (f32 W*H), W, H (i32).
__kernel void conv2d(__global const float *in, __global float *out, int w,
                     int h) {
  int x = get_global_id(0), y = get_global_id(1);
  if (x < 1 || y < 1 || x >= w - 1 || y >= h - 1)
    return;
  const float c11 = 0.2f, c12 = -0.3f, c13 = 0.4f;
  const float c21 = 0.5f, c22 = 0.6f, c23 = 0.7f;
  const float c31 = -0.8f, c32 = -0.9f, c33 = 0.1f;
  out[y * w + x] = c11 * in[(y - 1) * w + x - 1] + c12 * in[(y - 1) * w + x] +
                   c13 * in[(y - 1) * w + x + 1] + c21 * in[y * w + x - 1] +
                   c22 * in[y * w + x] + c23 * in[y * w + x + 1] +
                   c31 * in[(y + 1) * w + x - 1] + c32 * in[(y + 1) * w + x] +
                   c33 * in[(y + 1) * w + x + 1];
}
