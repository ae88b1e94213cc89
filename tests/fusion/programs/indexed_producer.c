// entry: f
// structure: {"map": 1, "reduce": 1, "redomap": 0, "loops": 2}
// args: [[1.5, -2, 3]]
// args: [[4]]
// args: [[]]
// NOT fused: ys is also read by indexing (ys[0]), so it must exist as an array. With an empty xs both
// programs fail (index 0 out of bounds).
float sq(float x) { return x * x; }
float add(float a, float b) { return a + b; }

float f(const float xs[]) {
  float ys[] = map(sq, xs);
  float s = reduce(add, 0.0f, ys);
  return s + ys[0];
}
