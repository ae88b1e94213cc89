/*
 * A Gaussian blur of late standard deviation sigma and late radius r over an image with clamped
 * borders: each output pixel is the mean of the (2r+1)×(2r+1) pixels around it, weighed by
 * expf(-(dx² + dy²) / (2 sigma²)) and normalized by the weights' sum. With sigma and r known
 * (and finite math), constant propagation clones blur_at for them, unrolls both loops and folds
 * every weight and their sum: the specialized kernel has literal weights, no expf and no loop.
 */
#include <math.h>

float blur_at(int k, const float img[], int w, int h, float sigma, int r) {
  int x = k % w;
  int y = k / w;
  float acc = 0.0f;
  float norm = 0.0f;
  for (int dy = -r; dy <= r; dy++) {
    int yy = y + dy;
    yy = yy < 0 ? 0 : yy > h - 1 ? h - 1 : yy;
    for (int dx = -r; dx <= r; dx++) {
      int xx = x + dx;
      xx = xx < 0 ? 0 : xx > w - 1 ? w - 1 : xx;
      float weight = expf(-(float)(dx * dx + dy * dy) / (2.0f * sigma * sigma));
      acc = acc + weight * img[yy * w + xx];
      norm = norm + weight;
    }
  }
  return acc / norm;
}

float *blur(const float img[], int w, int h, float sigma, int r) {
  float out[] = map(blur_at, iota(w * h), img, w, h, sigma, r);
  return out;
}
