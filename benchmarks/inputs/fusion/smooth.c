/*
 * A small image pipeline in combinators: a 3-point horizontal blur (a stencil over iota(w*h)),
 * a gain, a clamp, and the mean brightness. Fusion turns the three maps into one map and folds
 * a second copy of the chain into the reduction as a redomap.
 */
float blur_at(int k, const float img[], int w, int h) {
  int x = k % w;
  int left = x > 0 ? k - 1 : k;
  int right = x < w - 1 ? k + 1 : k;
  return (img[left] + img[k] + img[right]) / 3.0f;
}

float gain(float v, float g) { return v * g; }

float clamp01(float v) { return v < 0.0f ? 0.0f : v > 1.0f ? 1.0f : v; }

float add(float a, float b) { return a + b; }

float *smooth(const float img[], int w, int h, float g) {
  float blurred[] = map(blur_at, iota(w * h), img, w, h);
  float lit[] = map(gain, blurred, g);
  float out[] = map(clamp01, lit);
  return out;
}

float brightness(const float img[], int w, int h, float g) {
  float lit[] = map(gain, map(blur_at, iota(w * h), img, w, h), g);
  float total = reduce(add, 0.0f, map(clamp01, lit));
  return total / (float)(w * h);
}
