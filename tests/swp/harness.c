/* Calls every loop of scripts/bench-sched-loops.c on the same inputs for
 * many trip counts and prints what each wrote and returned, so that the
 * original and the software-pipelined build can be compared line by line. */
#include <stdio.h>
#include <string.h>
typedef unsigned int uint32_t;
typedef unsigned char uint8_t;
struct node { struct node *next; int v; };
void saxpy(int, float, const float *, float *);
float dot(int, const float *, const float *);
int isum(int, const int *);
void stencil3(int, const int *, int *);
void prefix(int, int *, const int *);
void prefix_alias(int, int *, const int *);
void copy(int, int *, const int *);
void scale(int, int *, int);
void vadd(int, int *, const int *, const int *);
void vadd_alias(int, int *, const int *, const int *);
int mulrec(int, int, int);
int xorrec(int, int, const int *);
float faddrec(int, float, const float *);
int chase(int, struct node *);
int shiftrec(int, int, const int *);
void affine(int, int *, const int *);
void fir4(int, const int *, int *, int, int, int, int);
void cmul(int, const float *, const float *, const float *, const float *, float *, float *);
int imax(int, const int *);
uint32_t lcg(int, uint32_t, uint32_t *);
void horner(int, const float *, float *);
void blend(int, const uint8_t *, const uint8_t *, uint8_t *, int);
void rec2(int, int *);
void rec_dist2(int, int *, const int *);
void sat(int, const int *, int *);
void sub2(int, const short *, const short *, int *);
int sad(int, const uint8_t *, const uint8_t *);
void axpy_i(int, int, const int *, int *);
void shift_mix(int, const uint32_t *, uint32_t *);
float norm2(int, const float *);
void gather(int, const int *, const int *, int *);
void stride2(int, const int *, int *);
float fmin_red(int, const float *);
float fmax_red(int, const float *);
float fmin_sel(int, const float *);
int imin_red(int, const int *);
uint32_t umax_red(int, const uint32_t *);
int minmax_red(int, const int *, int *);
uint32_t rec3(int, uint32_t, uint32_t, uint32_t, const uint32_t *);
uint32_t rec3_mul(int, uint32_t, uint32_t, uint32_t);
float frec2(int, float, float, const float *);
void mrec3(int, uint32_t *);
void mdist1(int, uint32_t *, const uint32_t *);
void mdist3(int, int *, const int *);
void mwar1(int, int *, const int *);
void munknown(int, int, int *);
void histo(int, const uint8_t *, int *);
void scatter_add(int, const int *, const int *, int *);
void relu(int, const int *, int *);
void pick(int, const int *, const int *, const int *, int *);
int count_if(int, const int *, int);
float fclamp_sum(int, const float *);
int cond_acc(int, const int *, int);

#define N 512
static int A[N], B[N], C[N], I[N];
static float FA[N], FB[N], FC[N], FD[N], FE[N], FF[N];
static uint8_t U[N], V[N], W[N];
static short SA[N], SB[N];
static struct node nodes[N];
static uint32_t seed = 12345;
static uint32_t rnd(void) { seed = seed * 1103515245u + 12345u; return seed >> 8; }

static void init(void) {
  seed = 12345;
  for (int i = 0; i < N; i++) {
    A[i] = (int)(rnd() % 2001) - 1000; B[i] = (int)(rnd() % 2001) - 1000; C[i] = (int)(rnd() % 100);
    I[i] = (int)(rnd() % 200);
    FA[i] = (float)(rnd() % 1000) / 64.0f; FB[i] = (float)(rnd() % 1000) / 64.0f; FC[i] = FD[i] = FE[i] = FF[i] = 0;
    U[i] = (uint8_t)rnd(); V[i] = (uint8_t)rnd(); W[i] = 0;
    SA[i] = (short)rnd(); SB[i] = (short)rnd();
    nodes[i].next = &nodes[rnd() % N]; nodes[i].v = i;
  }
}

static unsigned long sum_i(const int *p) { unsigned long h = 0; for (int i = 0; i < N; i++) h = h * 31 + (unsigned)p[i]; return h; }
static unsigned long sum_f(const float *p) { unsigned long h = 0; for (int i = 0; i < N; i++) { unsigned b; memcpy(&b, &p[i], 4); h = h * 31 + b; } return h; }
static unsigned long sum_u(const uint8_t *p) { unsigned long h = 0; for (int i = 0; i < N; i++) h = h * 31 + p[i]; return h; }
static unsigned fbits(float f) { unsigned b; memcpy(&b, &f, 4); return b; }

int main(void) {
  int ns[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 16, 17, 31, 100, 250};
  for (unsigned k = 0; k < sizeof ns / sizeof ns[0]; k++) {
    int n = ns[k];
    init(); saxpy(n, 1.5f, FA, FB); printf("saxpy %d %lx\n", n, sum_f(FB));
    init(); printf("dot %d %x\n", n, fbits(dot(n, FA, FB)));
    init(); printf("isum %d %d\n", n, isum(n, A));
    init(); stencil3(n, A, B); printf("stencil3 %d %lx\n", n, sum_i(B));
    init(); prefix(n, A, B); printf("prefix %d %lx\n", n, sum_i(A));
    init(); prefix_alias(n, A, A); printf("prefix_alias %d %lx\n", n, sum_i(A));
    init(); copy(n, A, B); printf("copy %d %lx\n", n, sum_i(A));
    init(); scale(n, A, 7); printf("scale %d %lx\n", n, sum_i(A));
    init(); vadd(n, C, A, B); printf("vadd %d %lx\n", n, sum_i(C));
    init(); vadd_alias(n, A + 1, A, B); printf("vadd_alias %d %lx\n", n, sum_i(A));
    init(); printf("mulrec %d %d\n", n, mulrec(n, 3, 5));
    init(); printf("xorrec %d %d\n", n, xorrec(n, 7, A));
    init(); printf("faddrec %d %x\n", n, fbits(faddrec(n, 0.5f, FA)));
    init(); printf("chase %d %d\n", n, chase(n, &nodes[0]));
    init(); printf("shiftrec %d %d\n", n, shiftrec(n, 1, A));
    init(); affine(n, A, B); printf("affine %d %lx\n", n, sum_i(A));
    init(); fir4(n, A, B, 1, -2, 3, 4); printf("fir4 %d %lx\n", n, sum_i(B));
    init(); cmul(n, FA, FB, FA + 7, FB + 3, FC, FD); printf("cmul %d %lx %lx\n", n, sum_f(FC), sum_f(FD));
    init(); printf("imax %d %d\n", n, n ? imax(n, A) : 0);
    init(); { uint32_t s = lcg(n, 99, (uint32_t *)C); printf("lcg %d %u %lx\n", n, s, sum_i(C)); }
    init(); horner(n, FA, FC); printf("horner %d %lx\n", n, sum_f(FC));
    init(); blend(n, U, V, W, 77); printf("blend %d %lx\n", n, sum_u(W));
    init(); rec2(n, A); printf("rec2 %d %lx\n", n, sum_i(A));
    init(); rec_dist2(n, A, B); printf("rec_dist2 %d %lx\n", n, sum_i(A));
    init(); sat(n, A, B); printf("sat %d %lx\n", n, sum_i(B));
    init(); sub2(n, SA, SB, C); printf("sub2 %d %lx\n", n, sum_i(C));
    init(); printf("sad %d %d\n", n, sad(n, U, V));
    init(); axpy_i(n, 3, A, B); printf("axpy_i %d %lx\n", n, sum_i(B));
    init(); shift_mix(n, (uint32_t *)A, (uint32_t *)B); printf("shift_mix %d %lx\n", n, sum_i(B));
    init(); printf("norm2 %d %x\n", n, fbits(norm2(n, FA)));
    init(); gather(n, I, A, B); printf("gather %d %lx\n", n, sum_i(B));
    init(); stride2(n, A, B); printf("stride2 %d %lx\n", n, sum_i(B));
    init(); printf("fmin_red %d %x\n", n, n ? fbits(fmin_red(n, FA)) : 0);
    init(); printf("fmax_red %d %x\n", n, n ? fbits(fmax_red(n, FA)) : 0);
    init(); printf("fmin_sel %d %x\n", n, n ? fbits(fmin_sel(n, FB)) : 0);
    init(); printf("imin_red %d %d\n", n, n ? imin_red(n, A) : 0);
    init(); printf("umax_red %d %u\n", n, umax_red(n, (const uint32_t *)A));
    init(); { int hi = 0; int lo = n ? minmax_red(n, B, &hi) : 0; printf("minmax_red %d %d %d\n", n, lo, hi); }
    init(); printf("rec3 %d %u\n", n, rec3(n, 1, 2, 3, (const uint32_t *)A));
    init(); printf("rec3_mul %d %u\n", n, rec3_mul(n, 1, 2, 3));
    init(); printf("frec2 %d %x\n", n, fbits(frec2(n, 1.0f, 2.0f, FA)));
    init(); mrec3(n, (uint32_t *)A); printf("mrec3 %d %lx\n", n, sum_i(A));
    init(); mdist1(n, (uint32_t *)A, (const uint32_t *)B); printf("mdist1 %d %lx\n", n, sum_i(A));
    init(); mdist3(n, A, B); printf("mdist3 %d %lx\n", n, sum_i(A));
    init(); mwar1(n, A, B); printf("mwar1 %d %lx\n", n, sum_i(A));
    init(); munknown(n, 2, A); printf("munknown+2 %d %lx\n", n, sum_i(A));
    init(); munknown(n, 0, A); printf("munknown+0 %d %lx\n", n, sum_i(A));
    init(); munknown(n, -1, A + 1); printf("munknown-1 %d %lx\n", n, sum_i(A));
    init(); histo(n, U, C); printf("histo %d %lx\n", n, sum_i(C));
    init(); scatter_add(n, I, B, A); printf("scatter_add %d %lx\n", n, sum_i(A));
    init(); relu(n, A, B); printf("relu %d %lx\n", n, sum_i(B));
    init(); pick(n, A, B, C, I); printf("pick %d %lx\n", n, sum_i(I));
    init(); printf("count_if %d %d\n", n, count_if(n, A, 100));
    init(); printf("fclamp_sum %d %x\n", n, fbits(fclamp_sum(n, FA)));
    init(); printf("cond_acc %d %d\n", n, cond_acc(n, A, -50));
  }
  return 0;
}
