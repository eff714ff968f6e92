// Needleman-Wunsch global alignment of a batch of 64-symbol sequence pairs,
// one pair per work-group: the (65 x 65) score table lives in __local memory,
// work-item t fills row t+1, and the group sweeps the 127 anti-diagonals with
// a barrier after each. Symbols are the low 2 bits of each byte; match +1,
// mismatch -1, gap -penalty. Writes the table's last row.
// Launch: global (pairs*64), local (64). Args: a, b (u8 pairs*64), last (i32
// pairs*64), penalty (i32).
#define L 64
__kernel void nw_diag(__global const uchar *a, __global const uchar *b,
                      __global int *last, int penalty) {
  __local int H[L + 1][L + 1];
  __local uchar sa[L], sb[L];
  int t = get_local_id(0), p = get_group_id(0);
  sa[t] = a[p * L + t];
  sb[t] = b[p * L + t];
  H[0][t + 1] = -(t + 1) * penalty;
  H[t + 1][0] = -(t + 1) * penalty;
  if (t == 0)
    H[0][0] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int d = 0; d < 2 * L - 1; ++d) {
    int i = t + 1, j = d - t + 1;
    if (j >= 1 && j <= L) {
      int sub = ((sa[i - 1] ^ sb[j - 1]) & 3) == 0 ? 1 : -1;
      int best = H[i - 1][j - 1] + sub;
      best = max(best, H[i - 1][j] - penalty);
      best = max(best, H[i][j - 1] - penalty);
      H[i][j] = best;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  last[p * L + t] = H[L][t + 1];
}
