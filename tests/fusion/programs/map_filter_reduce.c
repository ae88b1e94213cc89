// entry: f
// structure: {"redomap": 1, "map": 0, "filter": 0, "reduce": 0, "loops": 1}
// args: [[1.5, -2, 3, 0.25, -0.5], -1]
// args: [[], 0]
// map -> filter -> reduce. map -> filter alone does not fuse, but filter -> reduce gives a redomap over
// the map's output, and map -> redomap then fuses too: one redomap over xs,
// fold (acc, x) => { y = shift(x, c); pos(y) ? add(acc, y) : acc }. This needs the consumer-first
// (bottom-up) order of L0's gathering algorithm, or iterating to a fixpoint.
float shift(float x, float c) { return x + c; }
int pos(float x) { return x > 0.0f; }
float add(float a, float b) { return a + b; }

float f(const float xs[], float c) {
  float ys[] = map(shift, xs, c);
  float kept[] = filter(pos, ys);
  return reduce(add, 0.0f, kept);
}
