// One global compare-exchange step (j, k) of a bitonic sort over n keys: the
// lower index of each pair does the exchange, ascending where (i & k) == 0.
// Launch: global (n), local (256). Args: keys (u32 n, in place), j, k (u32).
__kernel void bitonic_step(__global uint *keys, uint j, uint k) {
  uint i = get_global_id(0), ixj = i ^ j;
  if (ixj > i) {
    uint a = keys[i], b = keys[ixj];
    bool up = (i & k) == 0;
    if ((a > b) == up) {
      keys[i] = b;
      keys[ixj] = a;
    }
  }
}
