// Gotos written as break/continue (CUDA): a walk over a thread's stream of
// values whose loop body is an if/else with a `break` in one arm (a rare hash
// stops the walk: goto finish) and a `continue` in the other (one even value
// in four is skipped: goto next, past the common tail). Both jump out of the
// middle of the if/else, so the if/else has no join of its own before the loop
// ends: the immediate post-dominator of its divergent branch is the loop's
// exit. A reconvergence stack therefore runs the odd-value and even-value
// lanes of the first iteration apart for the rest of the walk, and splits
// each group again at every iteration. Convergence checks at the joins (the
// common tail, the latch that `continue` reaches) merge them every iteration.
// The tail loads, so clang keeps it a block of its own. The locals are
// declared at the top (no scope cleanups for clang to route the jumps
// through). extern "C" keeps the kernel's name unmangled.
// Launch: 1-D, grid * block >= n, block = any (64, 128).
// Args: data (buf i32 n, values 0..999), out (buf i32 n), n (i32), iters
// (i32, e.g. 32).
extern "C" __global__ void break_continue(const int *data, int *out, int n, int iters) {
  int gid = blockIdx.x * blockDim.x + threadIdx.x;
  if (gid >= n)
    return;
  unsigned h = (unsigned)data[gid], v;
  int i;
  for (i = 0; i < iters; ++i) {
    v = (unsigned)data[(gid + 3 * i) % n];
    if (v & 1u) {
      h = h * 33u + v;
      if ((h & 127u) == 5u)
        break;
      h ^= h >> 7;
      h *= 0x85ebca6bu;
    } else {
      if ((v & 6u) == 0u)
        continue;
      h += v * 0x9e3779b9u;
      h = (h << 5) | (h >> 27);
    }
    h ^= (unsigned)data[(gid + i) % n];
    h += h >> 3;
  }
  out[gid] = (int)((h ^ (unsigned)i) & 0x7fffffffu);
}
