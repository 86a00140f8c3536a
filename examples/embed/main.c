/* SPDX-License-Identifier: Apache-2.0
 *
 * The embedded MLP run on one fixed input: prints its most likely class and
 * that class's probability. The model and libmxrt are linked in
 * (mxc_add_model(... STATIC)); mlp.h is the header mxc generated. */
#include "mlp.h"

#include <stdio.h>

int main(void) {
  /* A fixed pattern, the same every run: x[i] = ((i % 17) - 8) / 8. */
  static float data[MLP_DATA_SIZE];
  for (int i = 0; i < MLP_DATA_SIZE; ++i)
    data[i] = (float)((i % 17) - 8) / 8.0f;
  static float probabilities[MLP_SOFTMAX_OUTPUT_SIZE];

  mlp *net = NULL;
  if (mlp_create(NULL, &net) != MXRT_OK ||
      mlp_run(net, data, probabilities) != MXRT_OK) {
    fprintf(stderr, "embed: %s\n", mxrt_last_error());
    mlp_release(net);
    return 1;
  }
  int best = 0;
  for (int i = 1; i < MLP_SOFTMAX_OUTPUT_SIZE; ++i)
    if (probabilities[best] < probabilities[i])
      best = i;
  printf("class %d probability %.6f\n", best, probabilities[best]);
  mlp_release(net);
  return 0;
}
