/* SCF Table 2, configuration 7: the one-dimensional version of doconvol, convolving a signal of n
   samples with ccols float coefficients; border samples are copied, the rest clamped and rounded. */
void doconvol_1d(const int signal[], int n, int maxval, const float coef[], int ccols, int out[]) {
  int ccolso2 = ccols / 2;
  for (int col = 0; col < n; ++col) {
    if (col < ccolso2 || col >= n - ccolso2) {
      out[col] = signal[col];
    } else {
      float sum = 0.0f;
      for (int ccol = 0; ccol < ccols; ++ccol) {
        sum += coef[ccol] * (float)signal[col - ccolso2 + ccol];
      }
      if (sum < 0.0f) {
        sum = 0.0f;
      } else if (sum > (float)maxval) {
        sum = (float)maxval;
      }
      out[col] = (int)(sum + 0.5f);
    }
  }
}
