// A race on __global memory inside one work-group: each work-item stores its
// value and reads its neighbour's from the same buffer with no barrier (the
// work-groups use separate slices, so they do not race with each other).
__kernel void global_group_race(__global int *buf, __global int *out) {
  size_t l = get_local_id(0);
  size_t g = get_global_id(0);
  buf[g] = (int)g;
  out[g] = l + 1 < get_local_size(0) ? buf[g + 1] : 0;
}
