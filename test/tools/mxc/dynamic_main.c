// SPDX-License-Identifier: Apache-2.0
// Calls a library with a dynamic batch dimension through its generated
// header (dynamic-batch.test): two.h's two_run takes N first; the buffers are
// sized by the header's macros of N. Reads x and y (N x 4 float32, raw
// little-endian files), prints out (N x 3) one value per line, then checks
// that a batch over the library's bound fails without touching the outputs.
#include "two.h"

#include <stdio.h>
#include <stdlib.h>

static float *readFloats(const char *path, int64_t count) {
  float *data = malloc((size_t)(count ? count : 1) * sizeof(float));
  FILE *f = fopen(path, "rb");
  if (!data || !f ||
      fread(data, sizeof(float), (size_t)count, f) != (size_t)count) {
    fprintf(stderr, "cannot read %s\n", path);
    exit(1);
  }
  fclose(f);
  return data;
}

int main(int argc, char **argv) {
  if (argc != 4)
    return 2;
  int64_t n = atoll(argv[1]);
  float *x = readFloats(argv[2], TWO_X_SIZE(n));
  float *y = readFloats(argv[3], TWO_Y_SIZE(n));
  float *out = calloc((size_t)TWO_OUT_SIZE(n), sizeof(float));
  float mean[TWO_MEAN_W1_SIZE];
  two *model = NULL;
  if (two_create(NULL, &model) != MXRT_OK ||
      two_run(model, n, x, y, out, mean) != MXRT_OK) {
    fprintf(stderr, "%s\n", mxrt_last_error());
    return 1;
  }
  for (int64_t i = 0; i < TWO_OUT_SIZE(n); ++i)
    printf("%.9g\n", out[i]);
  // Over the bound: refused before anything is written.
  out[0] = 12345.0f;
  mxrt_status status = two_run(model, TWO_DIM_N_MAX + 1, x, y, out, mean);
  fprintf(stderr, "over the bound: %s; out[0] %s\n",
          status == MXRT_INVALID_ARGUMENT ? mxrt_last_error() : "accepted",
          out[0] == 12345.0f ? "untouched" : "written");
  two_release(model);
  free(x);
  free(y);
  free(out);
  return 0;
}
