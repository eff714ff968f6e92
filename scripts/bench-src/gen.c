/* gen: writes the structured inputs of the suite kernels that random fills
 * cannot make (CSR matrices, graphs, neighbour lists, hash tables, radix
 * offsets, well-conditioned matrices) as raw little-endian files for the
 * bench's file: fills, so every engine reads the same bytes.
 *
 *   gen KIND DIR SIZE SEED
 *
 * KIND and what it writes into DIR (SIZE is the kind's one size parameter):
 *   csr    SIZE rows of 0..63 entries (mean 32), columns uniform in [0, SIZE):
 *          row_ptr.bin (i32 SIZE+1), cols.bin (i32 nnz), vals.bin (f32 nnz)
 *   graph  SIZE vertices, out-degree 2..14, uniform targets; a BFS from 0 up to
 *          its widest level L: row_ptr, cols, frontier (i32: 1 at level L),
 *          cost (i32: the level up to L, else -1), meta.txt ("level L")
 *   lj     SIZE^3 atoms on a jittered unit lattice, lattice ids; neighbours =
 *          the other lattice sites within 1.5, shuffled: pos.bin (f32 4n: x y
 *          z 0), neigh.bin (i32 32n, column-major), nneigh.bin (i32 n)
 *   mesh   a SIZE x SIZE grid, cells numbered in row order with each run of 64
 *          shuffled; nb.bin (i32 4n, -1 at the border), area.bin (f32 4n)
 *   hash   2^SIZE slots half full of distinct random keys: tkeys.bin, tvals.bin
 *          (u32 2^SIZE), queries.bin (u32 2^(SIZE-1): half present)
 *   radix  SIZE random u32 keys: keys.bin, and goff.bin (u32 16*SIZE/4096): the
 *          digit-major exclusive scan of the 4-bit digit (shift 0) counts of
 *          each 4096-key block, as radix_count + radix_scan would give
 *   lu     SIZE 32x32 matrices, entries in [0,1) plus 32 on the diagonal
 *          (diagonally dominant: no pivoting needed): mats.bin (f32 1024*SIZE)
 * Build: cc -O2 gen.c -o gen */
#include "common.h"

static uint64_t st;
static uint64_t rnd(void) { return splitmix64_mix(st += 0x9e3779b97f4a7c15ull); }
static float rndf(void) { return (float)(rnd() >> 40) * (1.0f / 16777216.0f); }
static const char *dir;

static void out(const char *name, const void *p, size_t bytes) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(p, 1, bytes, f) != bytes || fclose(f)) die("cannot write %s", path);
}

static void shuffle(int *a, size_t n) {
  for (size_t i = n; i > 1; --i) {
    size_t j = rnd() % i;
    int t = a[i - 1]; a[i - 1] = a[j]; a[j] = t;
  }
}

static void csr(size_t n) {
  int *rp = malloc(sizeof(int) * (n + 1));
  rp[0] = 0;
  for (size_t r = 0; r < n; ++r) rp[r + 1] = rp[r] + (int)(rnd() % 64);
  size_t nnz = (size_t)rp[n];
  int *cols = malloc(sizeof(int) * nnz);
  float *vals = malloc(sizeof(float) * nnz);
  for (size_t e = 0; e < nnz; ++e) { cols[e] = (int)(rnd() % n); vals[e] = rndf(); }
  out("row_ptr.bin", rp, sizeof(int) * (n + 1));
  out("cols.bin", cols, sizeof(int) * nnz);
  out("vals.bin", vals, sizeof(float) * nnz);
}

static void graph(size_t n) {
  int *rp = malloc(sizeof(int) * (n + 1));
  rp[0] = 0;
  for (size_t v = 0; v < n; ++v) rp[v + 1] = rp[v] + 2 + (int)(rnd() % 13);
  size_t m = (size_t)rp[n];
  int *cols = malloc(sizeof(int) * m);
  for (size_t e = 0; e < m; ++e) cols[e] = (int)(rnd() % n);
  int *cost = malloc(sizeof(int) * n), *queue = malloc(sizeof(int) * n);
  for (size_t v = 0; v < n; ++v) cost[v] = -1;
  /* levels[l] = start of level l in the queue */
  size_t head = 0, tail = 0, lvl_start[64], nlev = 0;
  cost[0] = 0; queue[tail++] = 0;
  while (head < tail && nlev < 63) {
    lvl_start[nlev++] = head;
    size_t end = tail;
    for (; head < end; ++head) {
      int u = queue[head];
      for (int e = rp[u]; e < rp[u + 1]; ++e)
        if (cost[cols[e]] < 0) { cost[cols[e]] = cost[u] + 1; queue[tail++] = cols[e]; }
    }
  }
  lvl_start[nlev] = tail;
  size_t best = 0;
  for (size_t l = 0; l < nlev; ++l)
    if (lvl_start[l + 1] - lvl_start[l] > lvl_start[best + 1] - lvl_start[best]) best = l;
  int *frontier = calloc(n, sizeof(int));
  for (size_t v = 0; v < n; ++v) {
    if (cost[v] > (int)best) cost[v] = -1;
    if (cost[v] == (int)best) frontier[v] = 1;
  }
  out("row_ptr.bin", rp, sizeof(int) * (n + 1));
  out("cols.bin", cols, sizeof(int) * m);
  out("frontier.bin", frontier, sizeof(int) * n);
  out("cost.bin", cost, sizeof(int) * n);
  char meta[64];
  int len = snprintf(meta, sizeof meta, "level %zu\n", best);
  out("meta.txt", meta, (size_t)len);
}

static void lj(size_t s) {
  size_t n = s * s * s;
  float *pos = malloc(sizeof(float) * 4 * n);
  int *neigh = malloc(sizeof(int) * 32 * n), *nn = malloc(sizeof(int) * n);
  for (size_t i = 0; i < n; ++i) {
    pos[4 * i] = (float)(i % s) + 0.2f * (rndf() - 0.5f);
    pos[4 * i + 1] = (float)(i / s % s) + 0.2f * (rndf() - 0.5f);
    pos[4 * i + 2] = (float)(i / s / s) + 0.2f * (rndf() - 0.5f);
    pos[4 * i + 3] = 0.0f;
  }
  for (size_t i = 0; i < n; ++i) {
    long x = (long)(i % s), y = (long)(i / s % s), z = (long)(i / s / s);
    int list[32], m = 0;
    for (long dz = -1; dz <= 1; ++dz)
      for (long dy = -1; dy <= 1; ++dy)
        for (long dx = -1; dx <= 1; ++dx) {
          long X = x + dx, Y = y + dy, Z = z + dz;
          if ((dx | dy | dz) == 0 || X < 0 || Y < 0 || Z < 0 || X >= (long)s || Y >= (long)s || Z >= (long)s)
            continue;
          list[m++] = (int)((Z * (long)s + Y) * (long)s + X);
        }
    shuffle(list, (size_t)m);
    nn[i] = m;
    for (int k = 0; k < 32; ++k) neigh[(size_t)k * n + i] = k < m ? list[k] : 0;
  }
  out("pos.bin", pos, sizeof(float) * 4 * n);
  out("neigh.bin", neigh, sizeof(int) * 32 * n);
  out("nneigh.bin", nn, sizeof(int) * n);
}

static void mesh(size_t s) {
  size_t n = s * s;
  int *id = malloc(sizeof(int) * n); /* grid position -> cell number */
  for (size_t i = 0; i < n; ++i) id[i] = (int)i;
  for (size_t b = 0; b < n; b += 64) shuffle(id + b, n - b < 64 ? n - b : 64);
  int *nb = malloc(sizeof(int) * 4 * n);
  float *area = malloc(sizeof(float) * 4 * n);
  for (size_t p = 0; p < n; ++p) {
    long x = (long)(p % s), y = (long)(p / s);
    long nx[4] = {x - 1, x + 1, x, x}, ny[4] = {y, y, y - 1, y + 1};
    size_t c = (size_t)id[p];
    for (int k = 0; k < 4; ++k) {
      int ok = nx[k] >= 0 && ny[k] >= 0 && nx[k] < (long)s && ny[k] < (long)s;
      nb[(size_t)k * n + c] = ok ? id[(size_t)ny[k] * s + (size_t)nx[k]] : -1;
      area[(size_t)k * n + c] = 0.5f + rndf();
    }
  }
  out("nb.bin", nb, sizeof(int) * 4 * n);
  out("area.bin", area, sizeof(float) * 4 * n);
}

static uint32_t hash(uint32_t q) { return (q ^ (q >> 16)) * 0x45d9f3bu; }

static void hashtab(size_t lg) {
  size_t cap = (size_t)1 << lg, mask = cap - 1, nk = cap / 2, nq = cap / 2;
  uint32_t *tk = malloc(4 * cap), *tv = malloc(4 * cap), *keys = malloc(4 * nk), *q = malloc(4 * nq);
  memset(tk, 0xff, 4 * cap);
  for (size_t i = 0; i < nk;) {
    uint32_t k = (uint32_t)rnd();
    if (k == 0xffffffffu) continue;
    size_t h = hash(k) & mask;
    while (tk[h] != 0xffffffffu && tk[h] != k) h = (h + 1) & mask;
    if (tk[h] == k) continue; /* duplicate */
    tk[h] = k; tv[h] = (uint32_t)rnd(); keys[i++] = k;
  }
  for (size_t i = 0; i < nq; ++i) q[i] = (rnd() & 1) ? keys[rnd() % nk] : (uint32_t)rnd() | 1u;
  out("tkeys.bin", tk, 4 * cap);
  out("tvals.bin", tv, 4 * cap);
  out("queries.bin", q, 4 * nq);
}

static void radix(size_t n) {
  if (n % 4096) die("radix: SIZE must be a multiple of 4096");
  size_t g = n / 4096;
  uint32_t *keys = malloc(4 * n), *goff = calloc(16 * g, 4);
  for (size_t i = 0; i < n; ++i) keys[i] = (uint32_t)rnd();
  for (size_t i = 0; i < n; ++i) goff[(keys[i] & 15) * g + i / 4096]++;
  uint32_t run = 0;
  for (size_t i = 0; i < 16 * g; ++i) { uint32_t c = goff[i]; goff[i] = run; run += c; }
  out("keys.bin", keys, 4 * n);
  out("goff.bin", goff, 4 * 16 * g);
}

static void lu(size_t batch) {
  float *m = malloc(sizeof(float) * 1024 * batch);
  for (size_t i = 0; i < 1024 * batch; ++i) m[i] = rndf() + ((i % 1024) % 33 == 0 ? 32.0f : 0.0f);
  out("mats.bin", m, sizeof(float) * 1024 * batch);
}

int main(int argc, char **argv) {
  if (argc != 5) die("usage: gen KIND DIR SIZE SEED");
  dir = argv[2];
  mkdir_p(dir);
  size_t size = strtoull(argv[3], NULL, 0);
  st = strtoull(argv[4], NULL, 0);
  const char *k = argv[1];
  if (!strcmp(k, "csr")) csr(size);
  else if (!strcmp(k, "graph")) graph(size);
  else if (!strcmp(k, "lj")) lj(size);
  else if (!strcmp(k, "mesh")) mesh(size);
  else if (!strcmp(k, "hash")) hashtab(size);
  else if (!strcmp(k, "radix")) radix(size);
  else if (!strcmp(k, "lu")) lu(size);
  else die("unknown kind '%s'", k);
  return 0;
}
