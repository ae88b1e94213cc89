// entry: f
// structure: {"map": 1, "iota": 0, "loops": 1}
// args: [4]
// args: [0]
// iota -> map: iota(n) is a map of the identity over iota(n); it fuses like a map, leaving one map
// over iota(n).
float tenth(int i) { return (float)i / 10.0f; }

float* f(int n) {
  int is[] = iota(n);
  float ys[] = map(tenth, is);
  return ys;
}
