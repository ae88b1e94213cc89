/*
 * A square convolution of late radius r over an image with clamped borders: tap (dy, dx) of the
 * (2r+1)×(2r+1) taps, row-major, weighs the pixel dy rows and dx columns away. The radius and the
 * taps are late: constant propagation clones conv_r_at for them and unrolls both loops, so the
 * specialized kernel has its taps as literals and no loop.
 */
float conv_r_at(int k, const float img[], int w, int h, const float taps[], int r) {
  int x = k % w;
  int y = k / w;
  int side = 2 * r + 1;
  float acc = 0.0f;
  for (int dy = 0; dy < side; dy++) {
    int yy = y + dy - r;
    yy = yy < 0 ? 0 : yy > h - 1 ? h - 1 : yy;
    for (int dx = 0; dx < side; dx++) {
      int xx = x + dx - r;
      xx = xx < 0 ? 0 : xx > w - 1 ? w - 1 : xx;
      acc = acc + taps[dy * side + dx] * img[yy * w + xx];
    }
  }
  return acc;
}

float *conv_r(const float img[], int w, int h, const float taps[], int r) {
  float out[] = map(conv_r_at, iota(w * h), img, w, h, taps, r);
  return out;
}
