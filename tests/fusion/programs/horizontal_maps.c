// entry: f
// structure: {"hfused": 1, "map": 2, "loops": 1}
// args: [[1.5, -2, 3], [0, 0, 0], [0, 0, 0], 3]
// args: [[], [], [], 0]
// Horizontal: two independent maps over the same array xs run as one loop (one hfused group of two
// maps). Neither fuses vertically: both results are read by indexing in the copy loop.
float sq(float x) { return x * x; }
float half(float x) { return x * 0.5f; }

void f(const float xs[], float a[], float b[], int n) {
  float ys[] = map(sq, xs);
  float zs[] = map(half, xs);
  for (int i = 0; i < n; i++) {
    a[i] = ys[i];
    b[i] = zs[i];
  }
}
