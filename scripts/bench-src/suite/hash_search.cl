// Lookups in an open-addressing hash table (linear probing, empty slots
// 0xffffffff): each work-item hashes its query and probes until it finds the
// key (result: its value) or an empty slot (result: 0xffffffff).
// Launch: global (q), local (256). Args: tkeys, tvals (u32 cap), queries,
// result (u32 q), mask (u32: cap - 1).
__kernel void hash_search(__global const uint *tkeys, __global const uint *tvals,
                          __global const uint *queries, __global uint *result,
                          uint mask) {
  int i = get_global_id(0);
  uint q = queries[i];
  uint h = ((q ^ (q >> 16)) * 0x45d9f3bu) & mask;
  uint r = 0xffffffffu;
  for (;;) {
    uint k = tkeys[h];
    if (k == q) {
      r = tvals[h];
      break;
    }
    if (k == 0xffffffffu)
      break;
    h = (h + 1) & mask;
  }
  result[i] = r;
}
