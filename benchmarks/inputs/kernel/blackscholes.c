/*
 * Black-Scholes call prices of options given by their spot price, strike and years to expiry, for a
 * late risk-free rate and a late volatility (the model's market parameters, fixed for a batch):
 * d1 = (ln(S/K) + (r + v²/2) t) / (v √t), d2 = d1 - v √t, price = S N(d1) - K e^(-rt) N(d2), with the
 * cumulative normal N from Abramowitz and Stegun's polynomial (26.2.17). With r and v known,
 * constant propagation clones call_price for them and folds r + v²/2 and the other products of
 * known values; expf, logf and sqrtf stay calls on the option's own values.
 */
#include <math.h>

float cnd(float d) {
  float k = 1.0f / (1.0f + 0.2316419f * fabsf(d));
  float poly = k * (0.31938153f + k * (-0.356563782f + k * (1.781477937f + k * (-1.821255978f + k * 1.330274429f))));
  float c = 0.3989423f * expf(-0.5f * d * d) * poly;
  return d > 0.0f ? 1.0f - c : c;
}

float call_price(float spot, float strike, float years, float rate, float vol) {
  float sqrt_t = sqrtf(years);
  float d1 = (logf(spot / strike) + (rate + 0.5f * vol * vol) * years) / (vol * sqrt_t);
  float d2 = d1 - vol * sqrt_t;
  return spot * cnd(d1) - strike * expf(-rate * years) * cnd(d2);
}

float *blackscholes(const float spot[], const float strike[], const float years[], float rate, float vol) {
  float out[] = map(call_price, spot, strike, years, rate, vol);
  return out;
}
