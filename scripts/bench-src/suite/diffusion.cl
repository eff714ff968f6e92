// Explicit diffusion step with a per-cell coefficient: the interior uses the
// four neighbours directly, the border cells (a divergent branch) clamp their
// neighbour indices (reflecting boundary).
// Launch: global (W, H), local (64, 4). Args: u, kappa, out (f32 W*H), W, H
// (i32), dt (f32).
__kernel void diffusion(__global const float *u, __global const float *kappa,
                        __global float *out, int w, int h, float dt) {
  int x = get_global_id(0), y = get_global_id(1);
  if (x >= w || y >= h)
    return;
  int i = y * w + x;
  float c = u[i], lap;
  if (x == 0 || y == 0 || x == w - 1 || y == h - 1) {
    float n = u[max(y - 1, 0) * w + x], s = u[min(y + 1, h - 1) * w + x];
    float wv = u[y * w + max(x - 1, 0)], e = u[y * w + min(x + 1, w - 1)];
    lap = n + s + e + wv - 4.0f * c;
  } else {
    lap = u[i - w] + u[i + w] + u[i - 1] + u[i + 1] - 4.0f * c;
  }
  out[i] = c + dt * kappa[i] * lap;
}
