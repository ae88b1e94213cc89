// entry: f
// structure: {"map": 2, "loops": 2}
// args: [[1, 2, 3, 4], 4]
// args: [[5], 1]
// args: [[], 0]
// NOT fused: the stencil receives ys whole (a broadcast array parameter) and reads its neighbours, so
// ys is not a mapped input of the stencil: it must be computed entirely first.
float sq(float x) { return x * x; }
float blur_at(int i, const float a[], int n) {
  int l = i > 0 ? i - 1 : 0;
  int r = i < n - 1 ? i + 1 : n - 1;
  return (a[l] + a[i] + a[r]) / 3.0f;
}

float* f(const float xs[], int n) {
  float ys[] = map(sq, xs);
  float zs[] = map(blur_at, iota(n), ys, n);
  return zs;
}
