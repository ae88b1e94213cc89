// entry: f
// structure: {"filter": 1, "loops": 1}
// args: [[1.5, -2, 3, 0.25, -0.5, 7], -1]
// args: [[], 0]
// filter -> filter: one filter whose predicate is the conjunction (the consumer's broadcast scalar
// lo comes along).
int small(float x) { return x < 2.0f && x > -2.0f; }
int above(float x, float lo) { return x > lo; }

float* f(const float xs[], float lo) {
  return filter(above, filter(small, xs), lo);
}
