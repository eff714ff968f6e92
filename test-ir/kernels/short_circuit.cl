// Short-circuit conditions: `if ((a && b) || c) body; else other;` in a loop,
// a, b and c each a load (so clang keeps them as branches: a load from an
// arbitrary index cannot be speculated). The body has two ways in (a && b,
// and c after a or b failed) and c has two ways in (after a failed, after b
// failed); the immediate post-dominator of a's and b's branches is the join
// after the if/else, so a reconvergence stack runs c, and the body, once for
// each way in. Convergence checks at the joins (c, body) run them once.
// Launch: 1-D, global = n (a multiple of local), local = any (64, 128).
// Args: x (buf i32 n, values 0..999), y (buf i32 n, values 0..999), out (buf
// i32 n), n (i32), iters (i32, e.g. 24).
__kernel void short_circuit(__global const int *x, __global const int *y,
                            __global int *out, int n, int iters) {
  int gid = get_global_id(0);
  unsigned acc = (unsigned)x[gid];
  for (int i = 0; i < iters; ++i) {
    int j = (int)((unsigned)(gid * 13 + i * 7) % (unsigned)n);
    if ((x[j] > (int)(acc % 1000u) && y[j] < 600) || y[(j + 1) % n] > 450) {
      unsigned t = acc * 2654435761u + (unsigned)i;
      t ^= t >> 13;
      t *= 0x5bd1e995u;
      t ^= t >> 15;
      t += (unsigned)x[(j + 2) % n];
      t = (t << 5) | (t >> 27);
      acc = t ^ (t >> 11);
    } else {
      acc = acc + 7u;
    }
  }
  out[gid] = (int)(acc & 0x7fffffffu);
}
