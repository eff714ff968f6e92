// Row softmax, one thread per row: max, exp(x - max), sum, divide.
__global__ void softmax(const float *x, float *y, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float *row = x + r * cols;
  float m = -INFINITY;
  for (int c = 0; c < cols; c++) m = fmaxf(m, row[c]);
  float sum = 0.0f;
  for (int c = 0; c < cols; c++) {
    float e = expf(row[c] - m);
    y[r * cols + c] = e;
    sum += e;
  }
  for (int c = 0; c < cols; c++) y[r * cols + c] = y[r * cols + c] / sum;
}
