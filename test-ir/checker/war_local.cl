// Write-after-read race in __local memory: each work-item reads its right
// neighbour's slot, then overwrites its own slot with no barrier between, so
// work-item l-1 may read slot l before or after work-item l rewrites it.
__kernel void war_local(__global int *out) {
  __local int tile[64];
  size_t l = get_local_id(0);
  tile[l] = (int)l;
  barrier(CLK_LOCAL_MEM_FENCE);
  int right = tile[(l + 1) % 64];
  tile[l] = 2 * right;
  barrier(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = tile[l];
}
