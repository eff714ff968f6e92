// An uninitialised read of __local memory: only the first half of the
// work-group fills the tile, but every work-item reads its own slot.
__kernel void uninit_local(__global int *out) {
  __local int tile[64];
  size_t l = get_local_id(0);
  if (l < 32)
    tile[l] = (int)l;
  barrier(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = tile[l];
}
