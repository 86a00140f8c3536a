// SPDX-License-Identifier: Apache-2.0
// A program that embeds the mlp fixture compiled with `mxc -o libmlp.a`: it
// uses only the generated header's typed API (no dlopen) and prints every
// output value, one per line, for static-archive.test to compare.
#include "mlp.h"

#include <stdio.h>

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: static_main IN_DATA.npy\n");
    return 2;
  }
  mxrt_tensor *data = NULL;
  if (mxrt_tensor_load_npy(argv[1], &data) != MXRT_OK ||
      mxrt_tensor_num_elements(data) != MLP_DATA_SIZE) {
    fprintf(stderr, "static_main: %s: %s\n", argv[1], mxrt_last_error());
    mxrt_tensor_release(data);
    return 1;
  }
  static float out[MLP_SOFTMAX_OUTPUT_SIZE];
  mlp *net = NULL;
  mxrt_status status = mlp_create(NULL, &net);
  if (status == MXRT_OK)
    status = mlp_run(net, (const float *)mxrt_tensor_data(data), out);
  mlp_release(net);
  mxrt_tensor_release(data);
  if (status != MXRT_OK) {
    fprintf(stderr, "static_main: %s\n", mxrt_last_error());
    return 1;
  }
  for (int i = 0; i < MLP_SOFTMAX_OUTPUT_SIZE; ++i)
    printf("%.9g\n", out[i]);
  return 0;
}
