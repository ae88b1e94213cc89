// entry: blackscholes
// structure: {"map": 1, "hfused": 0, "loops": 1}
// args: [1825]
// args: [5]
// args: [0]
// L0 artificial benchmark P0 (thesis, Part IV): Black-Scholes call prices over iota(1825), with the
// inputs the optimised P0 shows (price 58 + 4(i+1)/1825, strike 65, years (i+1)/365, r = 0.08,
// v = 0.30). Written as separate map stages: the per-index inputs (three maps over iota(n)), d1 and
// d2, the two cumulative normal values, and the price. Fusion gives ONE map over iota(n).
//
// The stages form a DAG, not a chain: prices/strikes/years and d1s each have several consumers. They
// all end up inside the final map, so nothing is duplicated, but only when fusion works consumer-first
// (L0's bottom-up gathering): by the time a producer is considered, its consumers have already been
// fused into one map. (Fusing the input maps horizontally first would block this; vertical fusion
// comes first.)
//
// The kernel subset has no exp/log/sqrt: they are approximated with + - * / and loops (range
// reduction, then a Taylor or atanh series; Newton for sqrt). The thesis runs n = 1825.

float horner(float x) {
  float c1 = 0.31938153f;
  float c2 = -0.356563782f;
  float c3 = 1.781477937f;
  float c4 = -1.821255978f;
  float c5 = 1.330274429f;
  return x * (c1 + x * (c2 + x * (c3 + x * (c4 + x * c5))));
}

float absf(float x) { return x < 0.0f ? -x : x; }

// e^x: halve x until |x| <= 1/2, Taylor series to degree 8, square back.
float exp_approx(float x) {
  int k = 0;
  while ((x > 0.5f || x < -0.5f) && k < 40) {
    x = x * 0.5f;
    k++;
  }
  float term = 1.0f;
  float sum = 1.0f;
  for (int i = 1; i <= 8; i++) {
    term = term * x / (float)i;
    sum = sum + term;
  }
  for (int j = 0; j < k; j++) sum = sum * sum;
  return sum;
}

// ln x for x > 0: x = m * 2^e with m in [1, 2), ln m = 2 atanh((m - 1) / (m + 1)) by its series.
float log_approx(float x) {
  if (x <= 0.0f) return -1000.0f;
  float e = 0.0f;
  while (x >= 2.0f) {
    x = x * 0.5f;
    e = e + 1.0f;
  }
  while (x < 1.0f) {
    x = x * 2.0f;
    e = e - 1.0f;
  }
  float z = (x - 1.0f) / (x + 1.0f);
  float z2 = z * z;
  float term = z;
  float sum = 0.0f;
  for (int k = 1; k <= 15; k += 2) {
    sum = sum + term / (float)k;
    term = term * z2;
  }
  return 2.0f * sum + e * 0.6931472f;
}

// sqrt by Newton's iteration (a fixed number of steps).
float sqrt_approx(float x) {
  if (x <= 0.0f) return 0.0f;
  float r = x > 1.0f ? x : 1.0f;
  for (int i = 0; i < 20; i++) r = 0.5f * (r + x / r);
  return r;
}

float cnd0(float d) {
  float k = 1.0f / (1.0f + 0.2316419f * absf(d));
  float p = horner(k);
  float rsqrt2pi = 0.3989423f;
  return rsqrt2pi * exp_approx(-0.5f * d * d) * p;
}

float cnd(float d) {
  float c = cnd0(d);
  return 0.0f < d ? 1.0f - c : c;
}

float price_at(int i) { return 58.0f + 4.0f * (float)(i + 1) / 1825.0f; }
float strike_at(int i) { return 65.0f; }
float years_at(int i) { return (float)(i + 1) / 365.0f; }

float d1_of(float price, float strike, float years) {
  float r = 0.08f;
  float v = 0.30f;
  return (log_approx(price / strike) + (r + 0.5f * v * v) * years) / (v * sqrt_approx(years));
}

float d2_of(float d1, float years) { return d1 - 0.30f * sqrt_approx(years); }

float call_price(float price, float strike, float years, float cnd_d1, float cnd_d2) {
  float x_exp_rt = strike * exp_approx(-0.08f * years);
  return price * cnd_d1 - x_exp_rt * cnd_d2;
}

float* blackscholes(int n) {
  float prices[] = map(price_at, iota(n));
  float strikes[] = map(strike_at, iota(n));
  float years[] = map(years_at, iota(n));
  float d1s[] = map(d1_of, prices, strikes, years);
  float d2s[] = map(d2_of, d1s, years);
  float c1s[] = map(cnd, d1s);
  float c2s[] = map(cnd, d2s);
  float out[] = map(call_price, prices, strikes, years, c1s, c2s);
  return out;
}
