// Correct kernel: pointers one past the end of a __local and a private
// array, computed and compared but never dereferenced; a pointer selected
// between two arrays; a private pointer stored in memory and reloaded; an
// index one past the end stepped back before the access. --check all must
// report nothing, and the results match the host engine's.
__kernel void objects_ok(__global int *out, int n) {
  __local int a[64];
  __local int b[64];
  size_t l = get_local_id(0);
  size_t g = get_global_id(0);
  a[l] = (int)l;
  b[l] = (int)(2 * l);
  barrier(CLK_LOCAL_MEM_FENCE);
  int s = 0;
  __local int *end = a + 64;
  for (__local int *p = a + (l % 4); p < end; p += n)
    s += *p;
  __local int *q = (l & 1) ? a : b;
  s += q[l];
  __local int *past = b + 64;
  s += past[-1 - (int)(l % 8)];
  int x[8];
  int y[8];
  for (int i = 0; i < 8; i++) {
    x[i] = i + (int)g;
    y[i] = i * (int)g;
  }
  int *pe = x + 8;
  for (int *p = x + (g % 3); p != pe; p++)
    s += *p;
  int *sel = (g & 2) ? x : y;
  s += sel[g % 8];
  int *keep[2];
  keep[g & 1] = y;
  keep[(g & 1) ^ 1] = x;
  int *back = keep[g & 1];
  s += back[(g + n) % 8];
  out[g] = s;
}
