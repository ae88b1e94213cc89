// entry: f
// structure: {"hfused": 1, "reduce": 2, "loops": 1}
// args: [[1.5, -2, 3]]
// args: [[]]
// Horizontal: two independent reductions over the same array xs form one hfused group.
float add(float a, float b) { return a + b; }
float maxf(float a, float b) { return a > b ? a : b; }

float f(const float xs[]) {
  float s = reduce(add, 0.0f, xs);
  float m = reduce(maxf, -1000.0f, xs);
  return s * m;
}
