// entry: f
// structure: {"map": 1, "loops": 1}
// args: [[1.5, -2, 3], [4, 5, -6]]
// args: [[], []]
// args: [[1, 2], [3]]
// The consumer maps the producer's output together with another input (ys): the producer fuses and
// the fused map goes over xs and ys. The last args line has different lengths: both programs fail
// with a length error.
float sq(float x) { return x * x; }
float add(float a, float b) { return a + b; }

float* f(const float xs[], const float ys[]) {
  float sqs[] = map(sq, xs);
  float zs[] = map(add, sqs, ys);
  return zs;
}
