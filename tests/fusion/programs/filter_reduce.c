// entry: f
// structure: {"redomap": 1, "filter": 0, "reduce": 0, "loops": 1}
// args: [[1.5, -2, 3, 0.25, -0.5]]
// args: [[]]
// args: [[-1, -2]]
// filter -> reduce gives a redomap whose fold skips the rejected elements
// ((acc, x) => pos(x) ? add(acc, x) : acc), combine operator add.
int pos(float x) { return x > 0.0f; }
float add(float a, float b) { return a + b; }

float f(const float xs[]) {
  return reduce(add, 0.0f, filter(pos, xs));
}
