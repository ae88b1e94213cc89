// entry: f
// structure: {"map": 1, "loops": 1}
// args: [[1.5, -2, 3]]
// args: [[]]
// The producer's output is used twice, but both uses are mapped inputs of ONE consumer: fusing
// computes each element once and binds it to both parameters (L0 Fig. 22), so nothing is duplicated
// and the producer fuses.
float sq(float x) { return x * x; }
float mul(float a, float b) { return a * b; }

float* f(const float xs[]) {
  float ys[] = map(sq, xs);
  float zs[] = map(mul, ys, ys);
  return zs;
}
