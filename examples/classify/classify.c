/* SPDX-License-Identifier: Apache-2.0
 *
 * The smallest app around a compiled model: includes the header mxc wrote,
 * links lib<model>.so + libmxrt, reads one image tensor from a .npy file and
 * prints the top-1 class of the CIFAR-10 ResNet-20 the test suite compiles.
 */
#include "resnet20.h"

#include <stdio.h>
#include <string.h>

static const char *const kClasses[10] = {
    "airplane", "automobile", "bird",  "cat",  "deer",
    "dog",      "frog",       "horse", "ship", "truck"};

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s IMAGE.npy  (float32 1x3x32x32)\n", argv[0]);
    return 2;
  }
  mxrt_tensor *image = NULL;
  if (mxrt_tensor_load_npy(argv[1], &image) != MXRT_OK) {
    fprintf(stderr, "classify: %s\n", mxrt_last_error());
    return 1;
  }
  if (mxrt_tensor_num_elements(image) != RESNET20_DATA_SIZE) {
    fprintf(stderr, "classify: %s: expected %d floats\n", argv[1],
            RESNET20_DATA_SIZE);
    mxrt_tensor_release(image);
    return 1;
  }

  resnet20 *model = NULL;
  float logits[RESNET20_CIFARRESNETV10_DENSE0_FWD_OUTPUT_SIZE];
  mxrt_status status = resnet20_create(NULL, &model);
  if (status == MXRT_OK)
    status =
        resnet20_run(model, (const float *)mxrt_tensor_data(image), logits);
  if (status != MXRT_OK) {
    fprintf(stderr, "classify: %s\n", mxrt_last_error());
    resnet20_release(model);
    mxrt_tensor_release(image);
    return 1;
  }

  int best = 0;
  for (int i = 1; i < 10; ++i)
    if (logits[i] > logits[best])
      best = i;
  printf("class %d (%s), logit %.4f\n", best, kClasses[best], logits[best]);
  resnet20_release(model);
  mxrt_tensor_release(image);
  return 0;
}
