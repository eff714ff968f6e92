// OpenCL sub-group functions (cl_khr_subgroups, _subgroup_shuffle,
// _subgroup_shuffle_relative): per work-item, every function's result, in
// work-groups whose last sub-group may be partial.
__kernel void subgroup_ops(__global const int *in, __global int *out, __global float *f) {
  int i = get_global_id(0);
  int x = in[i];
  __global int *o = out + 16 * i;
  uint lid = get_sub_group_local_id();
  o[0] = get_sub_group_size();
  o[1] = lid;
  o[2] = get_sub_group_id();
  o[3] = get_num_sub_groups() + 100 * get_max_sub_group_size();
  o[4] = sub_group_broadcast(x, 3);
  o[5] = sub_group_reduce_add(x);
  o[6] = sub_group_reduce_min(x);
  o[7] = (int)sub_group_reduce_max((uint)x);
  o[8] = sub_group_scan_inclusive_add(x);
  o[9] = sub_group_scan_exclusive_add(x);
  o[10] = sub_group_scan_inclusive_max(x);
  o[11] = sub_group_any(x > 900) + 2 * sub_group_all(x >= 0);
  o[12] = sub_group_shuffle(x, lid ^ 2);
  o[13] = sub_group_shuffle_xor(x, 1);
  o[14] = sub_group_shuffle_up(x, 1);
  o[15] = sub_group_shuffle_down(x, 1);
  float y = (float)x * 0.37f;
  f[2 * i] = sub_group_reduce_add(y);
  f[2 * i + 1] = sub_group_scan_exclusive_min(y);
}

// The 64-bit types (two 32-bit shuffles each): values past 2^32 whose high
// words differ between lanes, negative and unsigned orderings, doubles.
__kernel void subgroup_ops64(__global const int *in, __global long *out, __global double *f) {
  int i = get_global_id(0);
  long x = (long)in[i] * 5000000011L - 7000000000000L;
  __global long *o = out + 8 * i;
  uint lid = get_sub_group_local_id();
  o[0] = sub_group_broadcast(x, 3);
  o[1] = sub_group_reduce_add(x);
  o[2] = sub_group_reduce_min(x);
  o[3] = (long)sub_group_reduce_max((ulong)x);
  o[4] = sub_group_scan_inclusive_add(x);
  o[5] = sub_group_scan_exclusive_max(x);
  o[6] = sub_group_shuffle_xor(x, 1);
  o[7] = sub_group_shuffle_down(x, 1);
  double y = (double)x * 1.0000001;
  f[2 * i] = sub_group_reduce_add(y);
  f[2 * i + 1] = sub_group_shuffle_up(y, 2);
}
