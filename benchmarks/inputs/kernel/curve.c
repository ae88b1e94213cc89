/*
 * A polynomial transfer curve over a signal: y = cs[0] + cs[1]·x + … + cs[deg]·x^deg, by Horner's
 * rule. The degree and the coefficients are late: constant propagation clones curve_at for them,
 * unrolls the loop over the degree and folds the loads of cs into literals.
 */
float curve_at(float x, const float cs[], int deg) {
  float acc = 0.0f;
  for (int i = 0; i <= deg; i++) {
    acc = acc * x + cs[deg - i];
  }
  return acc;
}

float *curve(const float xs[], const float cs[], int deg) {
  float ys[] = map(curve_at, xs, cs, deg);
  return ys;
}
