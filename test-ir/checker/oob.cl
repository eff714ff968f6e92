// An out-of-bounds access: each work-item writes the element after its own,
// so the last work-item writes one past the end of the buffer.
__kernel void oob(__global int *out) {
  size_t g = get_global_id(0);
  out[g + 1] = (int)g;
}
