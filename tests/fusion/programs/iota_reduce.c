// entry: f
// structure: {"iota": 0, "loops": 1}
// args: [5]
// args: [0]
// iota -> reduce: one combinator over iota(n) remains. Whether it is a redomap (the identity composed
// into the fold) or a reduce over the iota argument directly is left to the pass, so only the iota's
// disappearance and the loop count are asserted.
int addi(int a, int b) { return a + b; }

int f(int n) {
  int is[] = iota(n);
  return reduce(addi, 0, is);
}
