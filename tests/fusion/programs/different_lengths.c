// entry: f
// structure: {"hfused": 0, "map": 2, "loops": 2}
// args: [[1.5, -2, 3], [4, 5], [0, 0, 0], [0, 0], 3, 2]
// args: [[], [1], [], [0], 0, 1]
// NOT fused horizontally: the maps go over different arrays (xs, ws), of different lengths here.
float sq(float x) { return x * x; }
float neg(float x) { return -x; }

void f(const float xs[], const float ws[], float a[], float b[], int n, int m) {
  float ys[] = map(sq, xs);
  float zs[] = map(neg, ws);
  for (int i = 0; i < n; i++) a[i] = ys[i];
  for (int j = 0; j < m; j++) b[j] = zs[j];
}
