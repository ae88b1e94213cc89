// entry: f
// structure: {"map": 1, "filter": 1, "loops": 2}
// args: [[1.5, -2, 3, 0.25, -0.5], -1]
// args: [[], 0]
// NOT fused: map -> filter is not a fusion rule (a filter keeps its input's elements, and a filter's
// output length is unknown in advance), so both stay.
float shift(float x, float c) { return x + c; }
int pos(float x) { return x > 0.0f; }

float* f(const float xs[], float c) {
  return filter(pos, map(shift, xs, c));
}
