/*
 * A one-dimensional stencil of late radius r over a signal with clamped ends: tap t of the 2r+1
 * taps weighs the sample t - r places away. The radius and the taps are late: constant
 * propagation clones stencil_at for them and unrolls the loop over the taps, and the user's pass
 * (unit-taps.ts) then drops the multiplications by a tap of 1.
 */
float stencil_at(int k, const float xs[], int n, const float taps[], int r) {
  float acc = 0.0f;
  for (int t = 0; t < 2 * r + 1; t++) {
    int j = k + t - r;
    j = j < 0 ? 0 : j > n - 1 ? n - 1 : j;
    acc = acc + taps[t] * xs[j];
  }
  return acc;
}

float *stencil_r(const float xs[], int n, const float taps[], int r) {
  float ys[] = map(stencil_at, iota(n), xs, n, taps, r);
  return ys;
}
