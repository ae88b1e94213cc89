// entry: conv
// structure: {"map": 1, "loops": 1}
// args: [[1, 2, 3, 4, 5, 6], 3, 2]
// args: [[2.5], 1, 1]
// args: [[], 0, 0]
// A stencil map(conv_at, iota(w*h), img, w, h) (img broadcast, neighbours clamped at the borders)
// followed by a map over its output: the stencil is an ordinary map producer (its own broadcast
// arguments travel with it), so the two fuse into one map over iota(w*h).
int clampi(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }
float conv_at(int p, const float img[], int w, int h) {
  int x = p % w;
  int y = p / w;
  float acc = 0.0f;
  for (int dy = -1; dy <= 1; dy++) {
    for (int dx = -1; dx <= 1; dx++) {
      int xx = clampi(x + dx, 0, w - 1);
      int yy = clampi(y + dy, 0, h - 1);
      acc += img[yy * w + xx];
    }
  }
  return acc / 9.0f;
}
float cap(float v) { return v > 4.0f ? 4.0f : v; }

float* conv(const float img[], int w, int h) {
  return map(cap, map(conv_at, iota(w * h), img, w, h));
}
