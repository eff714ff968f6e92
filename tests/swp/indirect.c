/* Loops for tests/swp_exec.rs whose memory dependences no affine distance
 * describes. Built twice: the loops alone (compiled to IR and pipelined) and,
 * with -DHARNESS, the driver that runs them and prints what they wrote. */
#ifndef RESTRICT
#define RESTRICT
#endif

#ifndef HARNESS
void hist(int n, unsigned *RESTRICT h, const int *RESTRICT idx) {
  for (int i = 0; i < n; i++) h[idx[i]] += 1;
}

void fhist(int n, float *RESTRICT h, const int *RESTRICT idx, const float *RESTRICT w) {
  for (int i = 0; i < n; i++) h[idx[i]] += w[i];
}

/* The index computed in the body, through a float conversion (long latency). */
void bins(int n, unsigned *RESTRICT h, const float *RESTRICT x) {
  for (int i = 0; i < n; i++) h[(int)(x[i] * 15.0f)] += 2;
}

/* One array read and written at two indirect addresses. */
void gather_scatter(int n, int *RESTRICT a, const int *RESTRICT p, const int *RESTRICT q) {
  for (int i = 0; i < n; i++) a[p[i]] = a[q[i]] * 3 + 1;
}

/* A read-modify-write through a loop-invariant pointer. */
void accumulate(int n, long *RESTRICT total, const int *RESTRICT v) {
  for (int i = 0; i < n; i++) *total += v[i] ^ (*total >> 3);
}

/* In-place recurrences through two pointers into one array; `b` is `a`
 * shifted by d at the call, so they alias only without restrict. */
void shifted(int n, int d, int *a, const int *b) {
  for (int i = 0; i < n; i++) a[i + d] = b[i] * 5 + a[i + d];
}

/* A counting sort's count step and a histogram with a data-dependent weight
 * read back from the histogram itself. */
void count_then_weight(int n, unsigned *RESTRICT h, const unsigned char *RESTRICT key) {
  for (int i = 0; i < n; i++) h[key[i] & 7] = h[key[i] & 7] * 3 + h[(key[i] >> 3) & 7];
}

void prefix_in_place(int n, float *a) {
  for (int i = 1; i < n; i++) a[i] = a[i] + a[i - 1] * 0.5f;
}
#else
#include <stdio.h>
#include <string.h>
void hist(int, unsigned *, const int *);
void fhist(int, float *, const int *, const float *);
void bins(int, unsigned *, const float *);
void gather_scatter(int, int *, const int *, const int *);
void accumulate(int, long *, const int *);
void shifted(int, int, int *, const int *);
void count_then_weight(int, unsigned *, const unsigned char *);
void prefix_in_place(int, float *);

enum { N = 4000 };
static int idx[N], p[N], q[N], v[N], arr[N + 8];
static float w[N], xs[N], fa[N];
static unsigned char key[N];

static unsigned long hash(const void *m, size_t bytes) {
  const unsigned char *c = m;
  unsigned long h = 1469598103934665603ul;
  for (size_t k = 0; k < bytes; k++) h = (h ^ c[k]) * 1099511628211ul;
  return h;
}

int main(void) {
  int ns[] = {0, 1, 2, 3, 5, 9, 17, 100, 4000};
  for (unsigned t = 0; t < sizeof ns / sizeof ns[0]; t++) {
    int n = ns[t];
    unsigned x = 1;
    for (int i = 0; i < N; i++) {
      x = x * 1103515245u + 12345u;
      idx[i] = (x >> 9) % 16;
      p[i] = (x >> 11) % 64;
      q[i] = (x >> 5) % 64;
      v[i] = (int)(x >> 8);
      w[i] = (float)((x >> 12) % 100) * 0.25f;
      xs[i] = (float)((x >> 8) % 1000) / 1000.0f;
      key[i] = (unsigned char)(x >> 16);
      fa[i] = (float)((x >> 10) % 50) * 0.125f;
    }
    for (int i = 0; i < N + 8; i++) arr[i] = i * 7 - 3;
    unsigned h[16] = {0}, hb[16] = {0}, hc[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    float fh[16] = {0};
    long total = 5;
    hist(n, h, idx);
    fhist(n, fh, idx, w);
    bins(n, hb, xs);
    gather_scatter(n, arr, p, q);
    printf("hist %d %lx\nfhist %d %lx\nbins %d %lx\ngather %d %lx\n", n, hash(h, sizeof h), n, hash(fh, sizeof fh), n,
           hash(hb, sizeof hb), n, hash(arr, sizeof arr));
    accumulate(n, &total, v);
    count_then_weight(n, hc, key);
    printf("accumulate %d %ld\ncount %d %lx\n", n, total, n, hash(hc, sizeof hc));
    for (int d = 1; d <= 3; d++) {
      int m = n > N - 8 ? N - 8 : n;
      shifted(m, d, arr, arr);
      printf("shifted %d %d %lx\n", n, d, hash(arr, sizeof arr));
    }
    prefix_in_place(n, fa);
    printf("prefix %d %lx\n", n, hash(fa, sizeof fa));
  }
  return 0;
}
#endif
