// Two private arrays of one work-item, a then b: k runs from 0 to n, so
// with n = 8 work-item 8 reads a[8], one past the end of a, which is b[0]
// in the work-item's private memory.
__kernel void oob_private(__global int *out, int n) {
  int a[8];
  int b[8];
  for (int i = 0; i < 8; i++) {
    a[i] = i;
    b[i] = -i;
  }
  int g = get_global_id(0);
  int k = g % (n + 1);
  out[g] = a[k] * 3 + b[g % 8];
}
