/*
 * The demo's image pipeline in combinators (`npm run demo`, `npm run bench:latency`): a 3x3
 * convolution with clamped borders, a stencil over iota(w*h), then a clamp to [0, 1].
 *
 * The nine coefficients c0..c8 (row-major) are scalar operands of the stencil map: once they are
 * known, constant propagation specializes conv_at for them (a clone with the coefficients as
 * literals and the nine parameters gone), and fusion merges the two maps into one kernel. They
 * stay nine scalars rather than one `const float c[]` (which stages too, see conv-r.c for a late
 * tap array) so that `npm run bench:latency` can also compare the generic kernel with WGSL
 * `override` constants, which only scalars can be.
 */
float conv_at(int k, const float img[], int w, int h, float c0, float c1, float c2, float c3, float c4,
              float c5, float c6, float c7, float c8) {
  int x = k % w;
  int y = k / w;
  int xl = x > 0 ? x - 1 : x;
  int xr = x < w - 1 ? x + 1 : x;
  int u = (y > 0 ? k - w : k) - x;
  int m = k - x;
  int d = (y < h - 1 ? k + w : k) - x;
  return c0 * img[u + xl] + c1 * img[u + x] + c2 * img[u + xr] + c3 * img[m + xl] + c4 * img[m + x] +
         c5 * img[m + xr] + c6 * img[d + xl] + c7 * img[d + x] + c8 * img[d + xr];
}

float clamp01(float v) { return v < 0.0f ? 0.0f : v > 1.0f ? 1.0f : v; }

float *conv3x3(const float img[], int w, int h, float c0, float c1, float c2, float c3, float c4, float c5,
               float c6, float c7, float c8) {
  float conv[] = map(conv_at, iota(w * h), img, w, h, c0, c1, c2, c3, c4, c5, c6, c7, c8);
  float out[] = map(clamp01, conv);
  return out;
}
