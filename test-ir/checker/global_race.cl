// A race between work-groups on __global memory: every work-group's first
// work-item adds its partial sum to the total with a plain read and write
// instead of an atomic.
__kernel void global_race(__global const int *in, __global int *total) {
  if (get_local_id(0) == 0) {
    int s = 0;
    for (size_t k = 0; k < get_local_size(0); k++)
      s += in[get_global_id(0) + k];
    *total += s;
  }
}
