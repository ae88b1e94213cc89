// entry: f
// structure: {"map": 1, "reduce": 1, "redomap": 0, "loops": 2}
// args: [[1.5, -2, 3], [0]]
// args: [[], [7]]
// NOT fused: ys is both returned and reduced. Fusing the map into the reduce would still need ys for
// the return, so the map would run twice (once in the redomap, once for ys): its result is used
// other than as a mapped input, so it is not fused, and nothing is duplicated.
float sq(float x) { return x * x; }
float add(float a, float b) { return a + b; }

float* f(const float xs[], float total[]) {
  float ys[] = map(sq, xs);
  float s = reduce(add, 0.0f, ys);
  total[0] = s;
  return ys;
}
