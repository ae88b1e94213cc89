// entry: f
// structure: {"redomap": 1, "map": 0, "reduce": 0, "loops": 1}
// args: [[1.5, -2, 3], 3]
// args: [[], 2]
// args: [[1], 0]
// Producer and consumer both in the loop body: they fuse there (one redomap, run once per iteration,
// as the two combinators were). The producer's broadcast scalar (the loop counter as a float, a
// temporary assigned just before it) is not reassigned between producer and consumer: t and acc
// change only after the consumer, so fusing is valid.
float scale(float x, float c) { return x * c; }
float add(float a, float b) { return a + b; }

float f(const float xs[], int k) {
  float acc = 0.0f;
  for (int t = 0; t < k; t++) {
    float ys[] = map(scale, xs, (float)t);
    float s = reduce(add, 0.0f, ys);
    acc = acc * 0.5f + s;
  }
  return acc;
}
