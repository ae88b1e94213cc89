/*
 * A per-pixel program of op codes with one parameter each, run over every pixel: 0 adds, 1
 * multiplies, 2 clamps from below, 3 clamps from above, 4 squares and scales. The program (its
 * length, op codes and parameters) is late: constant propagation clones run_ops for it, unrolls the
 * loop over the ops and keeps one branch per op, so no load of the program and no op-code test is
 * left in the kernel.
 */
float run_ops(float v, const int ops[], const float ps[], int nops) {
  float x = v;
  for (int i = 0; i < nops; i++) {
    int op = ops[i];
    float p = ps[i];
    if (op == 0) {
      x = x + p;
    } else if (op == 1) {
      x = x * p;
    } else if (op == 2) {
      x = x < p ? p : x;
    } else if (op == 3) {
      x = x > p ? p : x;
    } else {
      x = x * x * p;
    }
  }
  return x;
}

float *ops_program(const float img[], const int ops[], const float ps[], int nops) {
  float out[] = map(run_ops, img, ops, ps, nops);
  return out;
}
