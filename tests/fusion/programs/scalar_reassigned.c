// entry: f
// structure: {"map": 2, "loops": 2}
// args: [[1, 2, 3], 2]
// args: [[-1.5], 0.5]
// NOT fused: c, a broadcast argument of the producer, is reassigned between producer and consumer,
// and the consumer reads the new value. With xs = [1, 2, 3], c = 2 the result is
// [2*3, 4*3, 6*3] = [6, 12, 18]; a fused map reading c once would give [9, 18, 27] (new c) or
// [4, 8, 12] (old c), wherever it is placed.
float scale(float x, float c) { return x * c; }

float* f(const float xs[], float c) {
  float ys[] = map(scale, xs, c);
  c = c + 1.0f;
  float zs[] = map(scale, ys, c);
  return zs;
}
