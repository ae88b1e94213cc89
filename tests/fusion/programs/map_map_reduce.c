// entry: f
// structure: {"redomap": 1, "map": 0, "reduce": 0, "loops": 1}
// args: [[1.5, -2, 3]]
// args: [[]]
// args: [[0.5, -0.5, 100000, 7]]
// map -> map -> reduce: the two maps fuse into one map (map-map), which fuses into the reduce as a
// redomap (map-reduce): one loop left.
float sq(float x) { return x * x; }
float plus1(float x) { return x + 1.0f; }
float add(float a, float b) { return a + b; }

float f(const float xs[]) {
  float ys[] = map(sq, xs);
  float zs[] = map(plus1, ys);
  return reduce(add, 0.0f, zs);
}
