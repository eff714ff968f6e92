// Tree reduction with `int` counters: each work-item adds two elements a
// work-group apart while loading, into a __local array declared in the
// kernel. Launch: global (n/2), local (256). Args: in (f32 n), partial (f32
// n/512).
__kernel void reduce_tree_int(__global const float *in, __global float *partial) {
  __local float sdata[256];
  int lid = get_local_id(0), ls = get_local_size(0);
  int i = get_group_id(0) * ls * 2 + lid;
  sdata[lid] = in[i] + in[i + ls];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = ls / 2; s > 0; s >>= 1) {
    if (lid < s)
      sdata[lid] += sdata[lid + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0)
    partial[get_group_id(0)] = sdata[0];
}
