/* SPDX-License-Identifier: Apache-2.0
 *
 * Trains the MLP of a library with a dynamic batch N (--buckets 1,4) through
 * its typed training API: three mlpd_train_step calls with N = 4 on a batch
 * read from raw float32 files, the parameters saved; then a call with N = 3,
 * which no bucket serves, must be refused.
 *
 * usage: typed_train_dynamic DATA.bin LABEL.bin OUT.params */
#include "mlpd.h"

#include <stdio.h>

enum { kBatch = 4 };

static int readFloats(const char *path, float *out, size_t count) {
  FILE *f = fopen(path, "rb");
  size_t got = f ? fread(out, sizeof(float), count, f) : 0;
  if (f)
    fclose(f);
  if (got != count) {
    fprintf(stderr, "typed_train_dynamic: %s: expected %zu floats\n", path,
            count);
    return 0;
  }
  return 1;
}

int main(int argc, char **argv) {
  static float data[MLPD_DATA_SIZE(kBatch)],
      label[MLPD_SOFTMAX_LABEL_SIZE(kBatch)],
      out[MLPD_SOFTMAX_OUTPUT_SIZE(kBatch)];
  if (argc != 4 || !readFloats(argv[1], data, MLPD_DATA_SIZE(kBatch)) ||
      !readFloats(argv[2], label, MLPD_SOFTMAX_LABEL_SIZE(kBatch)))
    return 2;
  mlpd *net = NULL;
  if (mlpd_create(NULL, &net) != MXRT_OK)
    goto failed;
  for (int step = 0; step < 3; ++step)
    if (mlpd_train_step(net, kBatch, data, label, 0.05f, out) != MXRT_OK)
      goto failed;
  if (mlpd_save_params(net, argv[3]) != MXRT_OK)
    goto failed;
  mxrt_status status = mlpd_train_step(net, 3, data, label, 0.05f, out);
  printf("N=3: %s: %s\n", mxrt_status_string(status), mxrt_last_error());
  mlpd_release(net);
  return 0;

failed:
  fprintf(stderr, "typed_train_dynamic: %s\n", mxrt_last_error());
  mlpd_release(net);
  return 1;
}
