__attribute__((noinline)) void bump(float *p, float v) { *p += v; }
__attribute__((noinline)) float get(__constant float *c, int i) { return c[i]; }
__constant float table[4] = {1, 2, 3, 4};
kernel void k(global float *out, __constant float *coef) {
  int i = get_global_id(0);
  float acc = out[i];
  bump(&acc, get(coef, i & 3) + table[i & 3]);
  bump(&out[i], acc);
}
