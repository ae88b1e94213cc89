/* SCF paper, Figure 2: computes a * x + y. Table 2 configurations 1-3 stage `a`. */
int mul_add(int x, int y, int a) {
  int u = x * a;
  int w = u + y;
  return w;
}
