/* SCF Table 2, configuration 6, after netpbm's pnmconvol: convolves a rows x cols grey image with a
   crows x ccols matrix of float coefficients (both row-major, flattened). Pixels whose window leaves
   the image are copied; the others get the weighted sum, clamped to 0..maxval and rounded. */
void doconvol(const int image[], int rows, int cols, int maxval, const float coef[], int crows, int ccols,
              int out[]) {
  int crowso2 = crows / 2;
  int ccolso2 = ccols / 2;
  for (int row = 0; row < rows; ++row) {
    for (int col = 0; col < cols; ++col) {
      if (row < crowso2 || row >= rows - crowso2 || col < ccolso2 || col >= cols - ccolso2) {
        out[row * cols + col] = image[row * cols + col];
      } else {
        float sum = 0.0f;
        for (int crow = 0; crow < crows; ++crow) {
          for (int ccol = 0; ccol < ccols; ++ccol) {
            int pixel = image[(row - crowso2 + crow) * cols + (col - ccolso2 + ccol)];
            sum += coef[crow * ccols + ccol] * (float)pixel;
          }
        }
        if (sum < 0.0f) {
          sum = 0.0f;
        } else if (sum > (float)maxval) {
          sum = (float)maxval;
        }
        out[row * cols + col] = (int)(sum + 0.5f);
      }
    }
  }
}
