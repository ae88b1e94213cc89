/* SCF Table 2, configurations 4-5: the dot product of vectors v1 and v2 of size s
   (v2 and s are fixed at run time). */
int dotproduct(const int v1[], const int v2[], int s) {
  int sum = 0;
  for (int i = 0; i < s; i++) {
    sum += v1[i] * v2[i];
  }
  return sum;
}
