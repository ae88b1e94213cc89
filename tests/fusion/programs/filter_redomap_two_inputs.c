// entry: f
// structure: {"filter": 1, "redomap": 1, "loops": 2}
// args: [[1, -1, 2], [10, 20]]
// args: [[-1], []]
// args: [[1, 2], [3]]
// NOT fused: the redomap maps the filter's output together with another array (ws), so the filter
// cannot be folded into it (element i of kept is not element i of xs). With the first args the
// result is 1*10 + 2*20 = 50; a wrong fusion would go over xs (length 3) and ws (length 2) and fail.
// The last args line fails in both (lengths 2 and 1).
int pos(float x) { return x > 0.0f; }
float add(float a, float b) { return a + b; }
float dotfold(float acc, float x, float w) { return acc + x * w; }

float f(const float xs[], const float ws[]) {
  float kept[] = filter(pos, xs);
  return redomap(add, dotfold, 0.0f, kept, ws);
}
