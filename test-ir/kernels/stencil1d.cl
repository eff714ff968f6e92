// 3-point stencil out[i] = 0.25*in[i-1] + 0.5*in[i] + 0.25*in[i+1], values
// outside [0, n) read as 0: the work-group stages its slice of `in` plus one
// halo element on each side in a __local pointer argument; the first and last
// work-items of the group load the halo (divergent code before the barrier).
// Launch: 1-D, global = n (a multiple of local), local = any (64, 128, 256).
// Args: in (buf f32 n), out (buf f32 n), tile (local f32 local_size + 2), n (i32).
__kernel void stencil1d(__global const float *in, __global float *out,
                        __local float *tile, int n) {
  int gid = get_global_id(0);
  int lid = get_local_id(0);
  int lsize = get_local_size(0);
  tile[lid + 1] = gid < n ? in[gid] : 0.0f;
  if (lid == 0)
    tile[0] = gid > 0 ? in[gid - 1] : 0.0f;
  if (lid == lsize - 1)
    tile[lsize + 1] = gid + 1 < n ? in[gid + 1] : 0.0f;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (gid < n)
    out[gid] = 0.25f * tile[lid] + 0.5f * tile[lid + 1] + 0.25f * tile[lid + 2];
}
