// entry: f
// structure: {"redomap": 1, "filter": 0, "loops": 1}
// args: [[1.5, -2, 3, 0.25, -0.5]]
// args: [[]]
// filter -> redomap (the redomap's only mapped input is the filter's output): one redomap.
int pos(float x) { return x > 0.0f; }
float add(float a, float b) { return a + b; }
float fold(float acc, float x) { return acc + 2.0f * x; }

float f(const float xs[]) {
  float kept[] = filter(pos, xs);
  return redomap(add, fold, 0.0f, kept);
}
