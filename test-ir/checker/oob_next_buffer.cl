// Two buffer arguments: work-item g reads in[g + 1], so the last one reads
// one element past the end of in (each buffer is its own allocation).
__kernel void oob_next_buffer(__global const int *in, __global int *out) {
  size_t g = get_global_id(0);
  out[g] = in[g + 1];
}
