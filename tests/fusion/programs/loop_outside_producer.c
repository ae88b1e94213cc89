// entry: f
// structure: {"map": 1, "reduce": 1, "redomap": 0, "loops": 2}
// args: [[1.5, -2, 3], 3]
// args: [[], 2]
// args: [[1], 0]
// NOT fused: the producer is outside the loop and its consumer inside. Fusing would recompute sq on
// every iteration (L0 adds a loop body's SOAC inputs to the unfusible set).
float sq(float x) { return x * x; }
float add(float a, float b) { return a + b; }

float f(const float xs[], int k) {
  float ys[] = map(sq, xs);
  float acc = 0.0f;
  for (int t = 0; t < k; t++) {
    float s = reduce(add, 0.0f, ys);
    acc = acc * 0.5f + s;
  }
  return acc;
}
