// entry: f
// structure: {"map": 2, "loops": 2}
// args: [[1, -2, 3.5], 1]
// args: [[1, -2, 3.5], 0]
// args: [[], 1]
// L0 §7.4's conditional rule (thesis Fig. 25): the producer `ys` has one consumer in each branch
// of the `if`. Only one branch runs, so fusing it into both duplicates no work: each branch keeps
// one map (2 maps in the function, one loop per run).
float sq(float x) { return x * x; }
float half(float x) { return x * 0.5f; }
float neg(float x) { return -x; }

float *f(const float xs[], int up) {
  float ys[] = map(sq, xs);
  if (up) {
    float zs[] = map(half, ys);
    return zs;
  } else {
    float ws[] = map(neg, ys);
    return ws;
  }
}
