// One kernel uses vstore_half, which simt does not lower; the other kernel
// must still run.
kernel void to_half(global const float *in, global half *out) {
  size_t i = get_global_id(0);
  vstore_half(in[i], i, out);
}

kernel void add_one(global int *x) {
  size_t i = get_global_id(0);
  x[i] += 1;
}
