// Breadth-first search, one frontier expansion: every vertex in the frontier
// visits its neighbours (CSR); the first visitor of an unvisited vertex
// (cost -1) claims it with atomic_cmpxchg and marks it in the next frontier.
// Launch: global (n), local (256). Args: row_ptr (i32 n+1), cols (i32 nnz),
// frontier (i32 n), cost (i32 n, in/out), next (i32 n), n, level (i32).
__kernel void bfs(__global const int *row_ptr, __global const int *cols,
                  __global const int *frontier, __global int *cost,
                  __global int *next, int n, int level) {
  int u = get_global_id(0);
  if (u < n && frontier[u]) {
    for (int e = row_ptr[u]; e < row_ptr[u + 1]; ++e) {
      int v = cols[e];
      if (atomic_cmpxchg(&cost[v], -1, level + 1) == -1)
        next[v] = 1;
    }
  }
}
