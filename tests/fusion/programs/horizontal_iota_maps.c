// entry: f
// structure: {"hfused": 1, "map": 2, "loops": 1}
// args: [[0, 0, 0, 0], [0, 0, 0, 0], 4]
// args: [[], [], 0]
// Horizontal: two independent maps over iota(n) (the same length atom n) form one hfused group.
float tenth(int i) { return (float)i / 10.0f; }
float twice(int i) { return (float)(2 * i); }

void f(float a[], float b[], int n) {
  float ys[] = map(tenth, iota(n));
  float zs[] = map(twice, iota(n));
  for (int i = 0; i < n; i++) {
    a[i] = ys[i];
    b[i] = zs[i];
  }
}
