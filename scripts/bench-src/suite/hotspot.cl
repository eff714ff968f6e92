// Hotspot-style thermal step: each 16x16 work-group stages its block of the
// temperature grid plus a one-cell halo in a __local [18][18] tile (edge
// work-items load the halo, clamped at the grid border), then updates every
// cell from its four neighbours, its power and the ambient temperature.
// Launch: global (W, H), local (16, 16); W, H % 16 == 0.
// Args: power, temp, out (f32 W*H), W, H (i32), sdc, rx, ry, rz (f32).
#define BS 16
__kernel void hotspot(__global const float *power, __global const float *temp,
                      __global float *out, int w, int h, float sdc, float rx,
                      float ry, float rz) {
  __local float t[BS + 2][BS + 2];
  int lx = get_local_id(0), ly = get_local_id(1);
  int x = get_global_id(0), y = get_global_id(1);
  t[ly + 1][lx + 1] = temp[y * w + x];
  if (lx == 0)
    t[ly + 1][0] = temp[y * w + max(x - 1, 0)];
  if (lx == BS - 1)
    t[ly + 1][BS + 1] = temp[y * w + min(x + 1, w - 1)];
  if (ly == 0)
    t[0][lx + 1] = temp[max(y - 1, 0) * w + x];
  if (ly == BS - 1)
    t[BS + 1][lx + 1] = temp[min(y + 1, h - 1) * w + x];
  barrier(CLK_LOCAL_MEM_FENCE);
  float c = t[ly + 1][lx + 1];
  float n = t[ly][lx + 1], s = t[ly + 2][lx + 1];
  float e = t[ly + 1][lx + 2], wv = t[ly + 1][lx];
  out[y * w + x] = c + sdc * (power[y * w + x] + (n + s - 2.0f * c) * ry +
                              (e + wv - 2.0f * c) * rx + (80.0f - c) * rz);
}
