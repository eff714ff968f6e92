/* Innermost loops for scripts/bench-sched: one function per line, so that
 * LLVM's pipeliner remarks (file:LINE) name the function. Compiled with
 * clang-22 --target=hexagon -O2 -fno-vectorize -fno-unroll-loops -g. */
typedef unsigned int uint32_t;
typedef unsigned char uint8_t;
struct node { struct node *next; int v; };
void saxpy(int n, float a, const float *restrict x, float *restrict y) { for (int i = 0; i < n; i++) y[i] = a * x[i] + y[i]; }
float dot(int n, const float *restrict x, const float *restrict y) { float s = 0; for (int i = 0; i < n; i++) s += x[i] * y[i]; return s; }
int isum(int n, const int *restrict x) { int s = 0; for (int i = 0; i < n; i++) s += x[i]; return s; }
void stencil3(int n, const int *restrict a, int *restrict b) { for (int i = 1; i < n - 1; i++) b[i] = a[i - 1] + 2 * a[i] + a[i + 1]; }
void prefix(int n, int *restrict a, const int *restrict b) { for (int i = 1; i < n; i++) a[i] = a[i - 1] + b[i]; }
void prefix_alias(int n, int *a, const int *b) { for (int i = 1; i < n; i++) a[i] = a[i - 1] + b[i]; }
void copy(int n, int *restrict a, const int *restrict b) { for (int i = 0; i < n; i++) a[i] = b[i]; }
void scale(int n, int *a, int k) { for (int i = 0; i < n; i++) a[i] = a[i] * k; }
void vadd(int n, int *restrict c, const int *restrict a, const int *restrict b) { for (int i = 0; i < n; i++) c[i] = a[i] + b[i]; }
void vadd_alias(int n, int *c, const int *a, const int *b) { for (int i = 0; i < n; i++) c[i] = a[i] + b[i]; }
int mulrec(int n, int x, int a) { for (int i = 0; i < n; i++) x = x * a; return x; }
int xorrec(int n, int x, const int *restrict b) { for (int i = 0; i < n; i++) x = (x ^ b[i]) + 3; return x; }
float faddrec(int n, float x, const float *restrict b) { for (int i = 0; i < n; i++) x = x + b[i]; return x; }
int chase(int n, struct node *p) { for (int i = 0; i < n; i++) p = p->next; return p->v; }
int shiftrec(int n, int x, const int *restrict b) { for (int i = 0; i < n; i++) x = (x << 3) ^ b[i]; return x; }
void affine(int n, int *restrict a, const int *restrict b) { for (int i = 0; i < n; i++) a[i] = b[i] * 5 + 1; }
void fir4(int n, const int *restrict x, int *restrict y, int c0, int c1, int c2, int c3) { for (int i = 0; i < n; i++) y[i] = c0 * x[i] + c1 * x[i + 1] + c2 * x[i + 2] + c3 * x[i + 3]; }
void cmul(int n, const float *restrict ar, const float *restrict ai, const float *restrict br, const float *restrict bi, float *restrict cr, float *restrict ci) { for (int i = 0; i < n; i++) { cr[i] = ar[i] * br[i] - ai[i] * bi[i]; ci[i] = ar[i] * bi[i] + ai[i] * br[i]; } }
int imax(int n, const int *restrict x) { int m = x[0]; for (int i = 1; i < n; i++) m = x[i] > m ? x[i] : m; return m; }
uint32_t lcg(int n, uint32_t s, uint32_t *restrict out) { for (int i = 0; i < n; i++) { s = s * 1664525u + 1013904223u; out[i] = s >> 8; } return s; }
void horner(int n, const float *restrict x, float *restrict y) { for (int i = 0; i < n; i++) { float v = x[i]; y[i] = ((2.0f * v + 3.0f) * v + 4.0f) * v + 5.0f; } }
void blend(int n, const uint8_t *restrict a, const uint8_t *restrict b, uint8_t *restrict c, int w) { for (int i = 0; i < n; i++) c[i] = (uint8_t)((a[i] * w + b[i] * (256 - w)) >> 8); }
void rec2(int n, int *restrict a) { for (int i = 2; i < n; i++) a[i] = a[i - 2] + a[i - 1]; }
void rec_dist2(int n, int *restrict a, const int *restrict b) { for (int i = 2; i < n; i++) a[i] = a[i - 2] * 3 + b[i]; }
void sat(int n, const int *restrict a, int *restrict b) { for (int i = 0; i < n; i++) { int v = a[i] * 2; b[i] = v > 255 ? 255 : (v < 0 ? 0 : v); } }
void sub2(int n, const short *restrict a, const short *restrict b, int *restrict c) { for (int i = 0; i < n; i++) c[i] = (a[i] - b[i]) * (a[i] - b[i]); }
int sad(int n, const uint8_t *restrict a, const uint8_t *restrict b) { int s = 0; for (int i = 0; i < n; i++) { int d = a[i] - b[i]; s += d < 0 ? -d : d; } return s; }
void axpy_i(int n, int a, const int *restrict x, int *restrict y) { for (int i = 0; i < n; i++) y[i] += a * x[i]; }
void shift_mix(int n, const uint32_t *restrict a, uint32_t *restrict b) { for (int i = 0; i < n; i++) { uint32_t v = a[i]; b[i] = (v << 7) ^ (v >> 3) ^ (v << 13); } }
float norm2(int n, const float *restrict x) { float s = 0; for (int i = 0; i < n; i++) s += x[i] * x[i]; return s; }
void gather(int n, const int *restrict idx, const int *restrict src, int *restrict dst) { for (int i = 0; i < n; i++) dst[i] = src[idx[i]]; }
void stride2(int n, const int *restrict a, int *restrict b) { for (int i = 0; i < n; i++) b[i] = a[2 * i] + a[2 * i + 1]; }
float fmin_red(int n, const float *restrict a) { float m = a[0]; for (int i = 1; i < n; i++) m = __builtin_fminf(m, a[i]); return m; }
float fmax_red(int n, const float *restrict a) { float m = a[0]; for (int i = 1; i < n; i++) m = __builtin_fmaxf(m, a[i]); return m; }
float fmin_sel(int n, const float *restrict a) { float m = a[0]; for (int i = 1; i < n; i++) m = a[i] < m ? a[i] : m; return m; }
int imin_red(int n, const int *restrict a) { int m = a[0]; for (int i = 1; i < n; i++) m = a[i] < m ? a[i] : m; return m; }
uint32_t umax_red(int n, const uint32_t *restrict a) { uint32_t m = 0; for (int i = 0; i < n; i++) m = a[i] > m ? a[i] : m; return m; }
int minmax_red(int n, const int *restrict a, int *restrict hi) { int lo = a[0], h = a[0]; for (int i = 1; i < n; i++) { lo = a[i] < lo ? a[i] : lo; h = a[i] > h ? a[i] : h; } *hi = h; return lo; }
uint32_t rec3(int n, uint32_t x, uint32_t y, uint32_t z, const uint32_t *restrict b) { for (int i = 0; i < n; i++) { uint32_t t = x + y + z + b[i]; x = y; y = z; z = t; } return z; }
uint32_t rec3_mul(int n, uint32_t x, uint32_t y, uint32_t z) { for (int i = 0; i < n; i++) { uint32_t t = 3u * x + 5u * y + 7u * z; x = y; y = z; z = t; } return z; }
float frec2(int n, float x, float y, const float *restrict b) { for (int i = 0; i < n; i++) { float t = 0.5f * x + 0.25f * y + b[i]; x = y; y = t; } return y; }
void mrec3(int n, uint32_t *restrict a) { for (int i = 3; i < n; i++) a[i] = a[i - 1] + a[i - 2] + a[i - 3]; }
void mdist1(int n, uint32_t *restrict a, const uint32_t *restrict b) { for (int i = 1; i < n; i++) a[i] = a[i - 1] * 3u + b[i]; }
void mdist3(int n, int *restrict a, const int *restrict b) { for (int i = 3; i < n; i++) a[i] = a[i - 3] + b[i]; }
void mwar1(int n, int *restrict a, const int *restrict b) { for (int i = 0; i < n - 1; i++) a[i] = a[i + 1] + b[i]; }
void munknown(int n, int k, int *restrict a) { for (int i = 0; i < n; i++) a[i + k] = a[i] + 1; }
void histo(int n, const uint8_t *restrict v, int *restrict h) { for (int i = 0; i < n; i++) h[v[i]] += 1; }
void scatter_add(int n, const int *restrict idx, const int *restrict v, int *restrict a) { for (int i = 0; i < n; i++) a[idx[i]] += v[i]; }
void relu(int n, const int *restrict a, int *restrict b) { for (int i = 0; i < n; i++) b[i] = a[i] > 0 ? a[i] : 0; }
void pick(int n, const int *restrict a, const int *restrict b, const int *restrict c, int *restrict d) { for (int i = 0; i < n; i++) d[i] = a[i] > b[i] ? c[i] : b[i] - a[i]; }
int count_if(int n, const int *restrict a, int t) { int c = 0; for (int i = 0; i < n; i++) c += a[i] > t; return c; }
float fclamp_sum(int n, const float *restrict a) { float s = 0; for (int i = 0; i < n; i++) { float v = a[i]; s += v < 0.0f ? 0.0f : (v > 1.0f ? 1.0f : v); } return s; }
int cond_acc(int n, const int *restrict a, int t) { int s = 0; for (int i = 0; i < n; i++) s += a[i] > t ? a[i] : -a[i]; return s; }
