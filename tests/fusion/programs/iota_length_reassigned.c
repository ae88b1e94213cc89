// entry: f
// structure: {"iota": 1, "map": 1, "loops": 2}
// args: [3]
// args: [1]
// NOT fused: the iota's length n is reassigned between the iota and its consumer, which also reads
// the new n. n = 3: is = [0, 1, 2], then n = 2 and ys = [0, 2, 4]. A fused map over iota(n) after
// the assignment has length 2 ([0, 2]); one before it scales by 3 ([0, 3, 6]).
float times(int i, int k) { return (float)(i * k); }

float* f(int n) {
  int is[] = iota(n);
  n = n - 1;
  float ys[] = map(times, is, n);
  return ys;
}
