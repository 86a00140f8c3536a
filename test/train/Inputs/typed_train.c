/* SPDX-License-Identifier: Apache-2.0
 *
 * Trains the MLP through the typed training API of its generated header
 * (mlpt.h): three mlpt_train_step calls on a batch read from raw float32
 * files, the parameters saved with mlpt_save_params, one read back by name,
 * and what the by-name calls say about a wrong name and a wrong size.
 *
 * usage: typed_train DATA.bin LABEL.bin OUT.params */
#include "mlpt.h"

#include <stdio.h>
#include <string.h>

static int readFloats(const char *path, float *out, size_t count) {
  FILE *f = fopen(path, "rb");
  size_t got = f ? fread(out, sizeof(float), count, f) : 0;
  if (f)
    fclose(f);
  if (got != count) {
    fprintf(stderr, "typed_train: %s: expected %zu floats\n", path, count);
    return 0;
  }
  return 1;
}

int main(int argc, char **argv) {
  static float data[MLPT_DATA_SIZE], label[MLPT_SOFTMAX_LABEL_SIZE];
  static float out[MLPT_SOFTMAX_OUTPUT_SIZE];
  static float bias[MLPT_PARAM_FC3_BIAS_SIZE];
  if (argc != 4 || !readFloats(argv[1], data, MLPT_DATA_SIZE) ||
      !readFloats(argv[2], label, sizeof label / sizeof *label))
    return 2;
  mlpt *net = NULL;
  if (mlpt_create(NULL, &net) != MXRT_OK)
    goto failed;
  for (int step = 0; step < 3; ++step)
    if (mlpt_train_step(net, data, label, 0.05f, out) != MXRT_OK)
      goto failed;
  if (mlpt_save_params(net, argv[3]) != MXRT_OK ||
      mlpt_get_param(net, "fc3_bias", bias, sizeof bias) != MXRT_OK)
    goto failed;
  printf("fc3_bias %.9g %.9g %.9g\n", bias[0], bias[1], bias[2]);

  /* set_param by name, read back. */
  bias[0] = 0.25f;
  if (mlpt_set_param(net, "fc3_bias", bias, sizeof bias) != MXRT_OK ||
      mlpt_get_param(net, "fc3_bias", bias, sizeof bias) != MXRT_OK)
    goto failed;
  printf("after set %.9g\n", bias[0]);

  mxrt_status status = mlpt_get_param(net, "fc9_bias", bias, sizeof bias);
  printf("unknown name: %s: %s\n", mxrt_status_string(status),
         mxrt_last_error());
  status = mlpt_get_param(net, "fc3_bias", bias, 4);
  printf("wrong size: %s: %s\n", mxrt_status_string(status),
         mxrt_last_error());
  mlpt_release(net);
  return 0;

failed:
  fprintf(stderr, "typed_train: %s\n", mxrt_last_error());
  mlpt_release(net);
  return 1;
}
