// Read-after-write race in __local memory (an image row kept in a shared
// tile): each work-item stores its pixel and at once reads its neighbour's,
// with the barrier forgotten.
__kernel void raw_local(__global const int *in, __global int *out) {
  __local int row[64];
  size_t l = get_local_id(0);
  size_t g = get_global_id(0);
  row[l] = in[g];
  int right = l + 1 < get_local_size(0) ? row[l + 1] : 0;
  out[g] = row[l] + right;
}
