// entry: f
// structure: {"scanomap": 1, "map": 0, "scan": 0, "loops": 1}
// args: [[1.5, -2, 3, 0.25]]
// args: [[]]
// map -> scan gives a scanomap (combine operator add, fold (acc, x) => add(acc, sq(x))).
float sq(float x) { return x * x; }
float add(float a, float b) { return a + b; }

float* f(const float xs[]) {
  return scan(add, 0.0f, map(sq, xs));
}
