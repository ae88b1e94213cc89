// entry: f
// structure: {"hfused": 0, "map": 2, "loops": 2}
// args: [[0, 0, 0], [0, 0], 3, 2]
// args: [[0], [0, 0], 1, 2]
// NOT fused horizontally: the maps go over iota(n) and iota(m), different length atoms.
float tenth(int i) { return (float)i / 10.0f; }
float twice(int i) { return (float)(2 * i); }

void f(float a[], float b[], int n, int m) {
  float ys[] = map(tenth, iota(n));
  float zs[] = map(twice, iota(m));
  for (int i = 0; i < n; i++) a[i] = ys[i];
  for (int j = 0; j < m; j++) b[j] = zs[j];
}
