// entry: minplus
// structure: {"map": 1, "loops": 1}
// also: relax_at {"redomap": 1, "map": 0, "reduce": 0, "loops": 1}
// args: [[2, 4, 5, 1, 1000, 3, 3, 7, 1], 3]
// args: [[0, 5, 1200, 9, 1200, 0, 2, 1200, 1200, 1200, 0, 1, 6, 1200, 1200, 0], 4]
// args: [[7], 1]
// args: [[], 0]
// L0 artificial benchmark P2: one min-plus (Floyd-Warshall style) step on a flattened n x n distance
// matrix, D'[i][j] = min(D[i][j], min_k D[i][k] + D[k][j]). Per cell, a map (plus) over iota(n) then a
// reduce with MIN and neutral element 1200 (as in the thesis); fusion makes relax_at's map + reduce
// one redomap. The first args are the thesis's matrix [[2,4,5],[1,1000,3],[3,7,1]].
int MIN(int a, int b) { return a < b ? a : b; }

int plus_at(int k, const int d[], int i, int j, int n) { return d[i * n + k] + d[k * n + j]; }

int relax_at(int ij, const int d[], int n) {
  int i = ij / n;
  int j = ij % n;
  int sums[] = map(plus_at, iota(n), d, i, j, n);
  int best = reduce(MIN, 1200, sums);
  return MIN(d[ij], best);
}

int* minplus(const int d[], int n) {
  return map(relax_at, iota(n * n), d, n);
}
