// Early exit from nested loops (`goto found` out of both): each work-item
// walks `rows` rows of its own data, each row of a length (1 to 8) that
// depends on the hash it carries, hashing what it reads, and leaves both
// loops at once at the first value whose hash hits `key`. Unstructured: the
// inner loop has two exits to two different places (the outer latch, and
// `found` after both loops), so the immediate post-dominator of the inner
// loop's branches is the kernel's end. A reconvergence stack at immediate
// post-dominators therefore keeps lanes whose rows end at different lengths
// apart for the rest of the walk; convergence checks at the inner loop's exit
// (the outer latch) reunite them after every row.
// Launch: 1-D, global = n (a multiple of local), local = any (64, 128).
// Args: data (buf i32 n, values 0..999, e.g. rand:), out (buf i32 n), n (i32),
// rows (i32, e.g. 16), key (i32, 0..63).
__kernel void nested_exit(__global const int *data, __global int *out, int n,
                          int rows, int key) {
  int gid = get_global_id(0);
  unsigned h = (unsigned)data[gid];
  // Declared here, not in the loops: a `goto` out of a scope with locals
  // goes through clang's cleanup dispatch, which merges the two exits into
  // one block that re-tests the condition (a structured loop again).
  int r, c = 0, len, v;
  for (r = 0; r < rows; ++r) {
    len = 1 + (int)((h >> 3) & 7u);
    for (c = 0; c < len; ++c) {
      v = data[(gid + 7 * r + c) % n];
      h = h * 31u + (unsigned)v;
      if ((h & 63u) == (unsigned)key)
        goto found;
    }
    h ^= h >> 7;
  }
  out[gid] = (int)(h & 0x7fffffffu);
  return;
found:
  out[gid] = -(r * 16 + c) - 1;
}
