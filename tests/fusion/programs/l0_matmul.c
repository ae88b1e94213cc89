// entry: matmul
// structure: {"map": 1, "loops": 1}
// also: dot_at {"redomap": 1, "map": 0, "reduce": 0, "loops": 1}
// args: [[1, 2, 3, 4], [5, 6, 7, 8], 2]
// args: [[1, 2, 3, 4, 5, 6, 7, 8, 9], [9, 8, 7, 6, 5, 4, 3, 2, 1], 3]
// args: [[2, 0, -1, 3, 1, 1, 0, 4, 5, -2, 1, 0, 7, 1, 1, 2], [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1], 4]
// args: [[], [], 0]
// L0 artificial benchmark P1: functional matrix multiplication of flattened n x n int matrices.
// Each cell maps the products a[i][k] * b[k][j] over iota(n), then sums them with a reduce; fusion
// turns dot_at's map + reduce into one redomap (the thesis's optimised P1 has the dot product "computed
// in a redomap"). The entry is a single map over iota(n*n) with a and b broadcast: nothing to fuse.
int add(int x, int y) { return x + y; }

int mul_at(int k, const int a[], const int b[], int i, int j, int n) { return a[i * n + k] * b[k * n + j]; }

int dot_at(int ij, const int a[], const int b[], int n) {
  int i = ij / n;
  int j = ij % n;
  int prods[] = map(mul_at, iota(n), a, b, i, j, n);
  return reduce(add, 0, prods);
}

int* matmul(const int a[], const int b[], int n) {
  return map(dot_at, iota(n * n), a, b, n);
}
