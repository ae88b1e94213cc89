// entry: f
// structure: {"map": 3, "loops": 3}
// args: [[1, -2, 3.5], 1]
// args: [[1, -2, 3.5], 0]
// The producer is used in a branch AND after the `if`: fusing into the branch would leave the later
// use needing the array, so nothing fuses (3 maps).
float sq(float x) { return x * x; }
float half(float x) { return x * 0.5f; }
float neg(float x) { return -x; }

float *f(const float xs[], int up) {
  float ys[] = map(sq, xs);
  if (up) {
    float zs[] = map(half, ys);
    return zs;
  }
  float ws[] = map(neg, ys);
  return ws;
}
