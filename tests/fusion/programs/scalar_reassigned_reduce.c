// entry: f
// structure: {"map": 1, "reduce": 1, "redomap": 0, "loops": 2}
// args: [[1, 2, 3], 2]
// args: [[], 0.5]
// NOT fused: c is the producer's broadcast argument and, after it is reassigned, the reduce's
// neutral element. With xs = [1, 2, 3], c = 2: ys = [2, 4, 6], c = 3, result 3 + 12 = 15. A redomap
// placed after the assignment gives 3 + 18 = 21; one placed before it gives 2 + 12 = 14.
float scale(float x, float c) { return x * c; }
float add(float a, float b) { return a + b; }

float f(const float xs[], float c) {
  float ys[] = map(scale, xs, c);
  c = c + 1.0f;
  return reduce(add, c, ys);
}
