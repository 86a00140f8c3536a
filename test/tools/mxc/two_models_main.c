// SPDX-License-Identifier: Apache-2.0
// A program that links two static model archives (mlp and fc_flatten compiled
// as `fc`): both define the weak `mxc_model_descriptor` alias, which must not
// clash. Reflects each model through its own <name>_descriptor, runs both
// through their typed APIs and prints every output value with its model.
#include "fc.h"
#include "mlp.h"

#include <stdio.h>

static int fail(const char *what) {
  fprintf(stderr, "two_models_main: %s: %s\n", what, mxrt_last_error());
  return 1;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: two_models_main MLP_IN.npy FC_IN.npy\n");
    return 2;
  }
  mxrt_tensor *mlpIn = NULL, *fcIn = NULL;
  if (mxrt_tensor_load_npy(argv[1], &mlpIn) || mxrt_tensor_load_npy(argv[2], &fcIn))
    return fail("loading inputs");

  // Each model reflects its own table, whatever the weak alias resolved to.
  mxrt_model *a = NULL, *b = NULL;
  if (mxrt_model_from_descriptor(&mlp_descriptor, &a) ||
      mxrt_model_from_descriptor(&fc_descriptor, &b))
    return fail("mxrt_model_from_descriptor");
  printf("descriptor %s inputs=%d outputs=%d\n", mxrt_model_name(a),
         mxrt_model_num_inputs(a), mxrt_model_num_outputs(a));
  printf("descriptor %s inputs=%d outputs=%d\n", mxrt_model_name(b),
         mxrt_model_num_inputs(b), mxrt_model_num_outputs(b));
  mxrt_model_release(a);
  mxrt_model_release(b);

  static float mlpOut[MLP_SOFTMAX_OUTPUT_SIZE], fcOut[FC_FC0_OUTPUT_SIZE];
  mlp *m = NULL;
  fc *f = NULL;
  if (mlp_create(NULL, &m) || fc_create(NULL, &f))
    return fail("create");
  if (mlp_run(m, (const float *)mxrt_tensor_data(mlpIn), mlpOut))
    return fail("mlp_run");
  if (fc_run(f, (const float *)mxrt_tensor_data(fcIn), fcOut))
    return fail("fc_run");
  mlp_release(m);
  fc_release(f);
  mxrt_tensor_release(mlpIn);
  mxrt_tensor_release(fcIn);
  for (int i = 0; i < MLP_SOFTMAX_OUTPUT_SIZE; ++i)
    printf("mlp %.9g\n", mlpOut[i]);
  for (int i = 0; i < FC_FC0_OUTPUT_SIZE; ++i)
    printf("fc %.9g\n", fcOut[i]);
  return 0;
}
