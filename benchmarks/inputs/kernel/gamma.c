/*
 * Gamma correction of late exponent: each pixel, clamped to [0, 1], raised to 1 / gamma. With gamma
 * known, constant propagation clones the pixel function and folds 1 / gamma to a literal (the
 * division is exact IEEE arithmetic, so it folds under exact math too); powf itself stays a call
 * of a known exponent.
 */
#include <math.h>

float corrected(float x, float gamma) {
  return powf(fminf(fmaxf(x, 0.0f), 1.0f), 1.0f / gamma);
}

float *gamma_correct(const float img[], float gamma) {
  float out[] = map(corrected, img, gamma);
  return out;
}
