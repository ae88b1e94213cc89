// entry: f
// structure: {"redomap": 1, "map": 0, "loops": 1}
// args: [[1.5, -2, 3, 0.25], 3]
// args: [[], 1]
// map -> redomap gives one redomap (the map's function is composed before the fold).
float scale(float x, float c) { return x * c; }
float add(float a, float b) { return a + b; }
float fold(float acc, float x) { return acc + 2.0f * x; }

float f(const float xs[], float c) {
  float ys[] = map(scale, xs, c);
  return redomap(add, fold, 1.0f, ys);
}
