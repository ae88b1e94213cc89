// entry: f
// structure: {"hfused": 1, "redomap": 1, "reduce": 1, "map": 0, "loops": 1}
// args: [[1.5, -2, 3]]
// args: [[]]
// Vertical then horizontal: the map fuses into its only consumer (a redomap over xs); that redomap
// and the independent reduce over xs then form one hfused group of reductions. (This assumes
// horizontal fusion runs after vertical fusion, as the redomap only goes over xs after it.)
float sq(float x) { return x * x; }
float add(float a, float b) { return a + b; }
float maxf(float a, float b) { return a > b ? a : b; }

float f(const float xs[]) {
  float ys[] = map(sq, xs);
  float s = reduce(add, 0.0f, ys);
  float m = reduce(maxf, -1000.0f, xs);
  return s - m;
}
