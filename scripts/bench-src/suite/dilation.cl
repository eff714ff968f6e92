// Grey-scale morphological dilation of an 8-bit image with a 5x5 square:
// the maximum over the window, skipping pixels outside the image.
// Launch: global (W, H), local (32, 8). Args: in, out (u8 W*H), W, H (i32).
__kernel void dilation(__global const uchar *in, __global uchar *out, int w,
                       int h) {
  int x = get_global_id(0), y = get_global_id(1);
  if (x >= w || y >= h)
    return;
  uchar m = 0;
  for (int dy = -2; dy <= 2; ++dy) {
    int yy = y + dy;
    if (yy < 0 || yy >= h)
      continue;
    for (int dx = -2; dx <= 2; ++dx) {
      int xx = x + dx;
      if (xx >= 0 && xx < w)
        m = max(m, in[yy * w + xx]);
    }
  }
  out[y * w + x] = m;
}
