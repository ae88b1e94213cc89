// entry: f
// structure: {"map": 2, "reduce": 1, "redomap": 0, "loops": 3}
// args: [[1.5, -2, 3]]
// args: [[]]
// NOT fused: ys has two consumers (the reduce, and the map that subtracts the mean). Fusing into both
// would compute sq twice per element. The two consumers are not independent (the map reads the
// reduce's result), so they are not fused horizontally either; zs is returned, so it has no consumer.
float sq(float x) { return x * x; }
float add(float a, float b) { return a + b; }
float minus(float x, float m) { return x - m; }

float* f(const float xs[]) {
  float ys[] = map(sq, xs);
  float s = reduce(add, 0.0f, ys);
  float zs[] = map(minus, ys, s);
  return zs;
}
