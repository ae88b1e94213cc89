// entry: f
// structure: {"scanomap": 1, "map": 0, "loops": 1}
// args: [[1.5, -2, 3, 0.25]]
// args: [[]]
// map -> scanomap gives one scanomap.
float neg(float x) { return -x; }
float add(float a, float b) { return a + b; }
float fold(float acc, float x) { return acc + 2.0f * x; }

float* f(const float xs[]) {
  float ys[] = map(neg, xs);
  return scanomap(add, fold, 0.0f, ys);
}
