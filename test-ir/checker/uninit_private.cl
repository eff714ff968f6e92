// An uninitialised read of private memory: each work-item fills the first
// g % 8 elements of its array, then reads all eight.
__kernel void uninit_private(__global int *out) {
  int a[8];
  size_t g = get_global_id(0);
  for (int k = 0; k < (int)(g % 8); k++)
    a[k] = k;
  int s = 0;
  for (int k = 0; k < 8; k++)
    s += a[(k + (int)g) % 8];
  out[g] = s;
}
