// entry: f
// structure: {"map": 1, "loops": 1}
// args: [[1.5, -2, 3], 0.5]
// args: [[], 2]
// map -> map with a broadcast scalar in each: one map (map-map fusion).
float scale(float x, float c) { return x * c; }
float plus1(float x) { return x + 1.0f; }

float* f(const float xs[], float c) {
  float ys[] = map(scale, xs, c);
  float zs[] = map(plus1, ys);
  return zs;
}
