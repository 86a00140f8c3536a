/* SPDX-License-Identifier: Apache-2.0
 *
 * Trains a classifier on Fashion-MNIST with a library built by `mxc --train`
 * (functions forward, grad, train_step), then saves the learned parameters
 * as an MXNet .params file that plain `mxc --params` compiles back into an
 * inference library. The same program evaluates such an inference library
 * (--eval), so both accuracies can be compared.
 *
 *   train --lib libnet_train.so --data DIR [--epochs N] [--lr X]
 *         [--limit N] [--test-limit N] [--save FILE.params] [--seed S]
 *   train --eval --lib libnet.so --data DIR [--test-limit N]
 *
 * DIR holds the IDX files (train-images-idx3-ubyte.gz, ...), as Debian's
 * dataset-fashion-mnist installs them in /usr/share/datasets/fashion-mnist.
 * The model's first input is the images (batch x 1 x 28 x 28 or batch x 784,
 * pixels scaled to [0, 1]), its first output the class probabilities, and
 * train_step's second input the labels (class numbers as floats).
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
static const char *program = "train";
#include "fashion.h"

int main(int argc, char **argv) {
  common_options o = default_options();
  int eval_only = 0;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--eval")) {
      eval_only = 1;
      continue;
    }
    if (!v)
      die("every option but --eval takes a value");
    if (!common_option(&o, a, v)) {
      fprintf(stderr, "train: unknown option '%s'\n", a);
      return 1;
    }
    ++i;
  }
  const char *lib = o.lib, *dir = o.dir, *save = o.save;
  int epochs = o.epochs;
  double lr = o.lr;
  int64_t limit = o.limit, test_limit = o.test_limit;
  unsigned seed = o.seed;
  if (!lib)
    die("--lib LIB.so is required");

  mxrt_model *model;
  mxrt_instance *instance;
  check(mxrt_model_open(lib, &model), lib);
  check(mxrt_instance_create(model, NULL, &instance), "instance");
  dataset test = load(dir, "t10k", test_limit);
  if (eval_only) {
    printf("test accuracy %.4f\n", evaluate(instance, model, &test));
    mxrt_instance_release(instance);
    mxrt_model_release(model);
    return 0;
  }

  int32_t step;
  if (mxrt_model_find_function(model, "train_step", &step) != MXRT_OK)
    die("the library has no train_step: build it with mxc --train");
  mxrt_tensor_info in, label, out;
  check(mxrt_model_function_input_info(model, step, 0, &in), "input");
  check(mxrt_model_function_input_info(model, step, 1, &label), "label");
  check(mxrt_model_function_output_info(model, step, 0, &out), "output");
  dataset train = load(dir, "train", limit);
  int64_t batch = batch_of(&in, &train), classes = out.shape[out.ndim - 1];
  mxrt_tensor *x, *y, *rate, *p;
  check(mxrt_tensor_create(MXRT_F32, in.ndim, in.shape, &x), "tensor");
  check(mxrt_tensor_create(MXRT_F32, label.ndim, label.shape, &y), "tensor");
  check(mxrt_tensor_create(MXRT_F32, 0, NULL, &rate), "tensor");
  check(mxrt_tensor_create(MXRT_F32, out.ndim, out.shape, &p), "tensor");
  *(float *)mxrt_tensor_data(rate) = (float)lr;
  mxrt_tensor *inputs[3] = {x, y, rate};

  int64_t *order = malloc(sizeof(int64_t) * train.count);
  for (int64_t i = 0; i < train.count; ++i)
    order[i] = i;
  srand(seed);
  printf("training %lld images, batch %lld, lr %g\n", (long long)train.count,
         (long long)batch, lr);
  for (int e = 1; e <= epochs; ++e) {
    for (int64_t i = train.count - 1; i > 0; --i) { /* Fisher-Yates */
      int64_t j = rand() % (i + 1), t = order[i];
      order[i] = order[j];
      order[j] = t;
    }
    double loss = 0, start = now();
    int64_t correct = 0, seen = 0;
    for (int64_t first = 0; first + batch <= train.count; first += batch) {
      fill(&train, order, first, batch, mxrt_tensor_data(x),
           mxrt_tensor_data(y));
      check(mxrt_instance_call(instance, step, inputs, 3, &p, 1), "train_step");
      const float *probs = mxrt_tensor_data(p);
      for (int64_t b = 0; b < batch; ++b) {
        int target = train.labels[order[first + b]];
        loss -= log(fmax(probs[b * classes + target], 1e-12));
        correct += argmax(probs + b * classes, classes) == target;
      }
      seen += batch;
    }
    double seconds = now() - start;
    printf("epoch %d: loss %.4f train accuracy %.4f (%.0f images/s)\n", e,
           loss / seen, (double)correct / seen, seen / seconds);
    fflush(stdout);
  }
  printf("test accuracy %.4f\n", evaluate(instance, model, &test));
  if (save) {
    check(mxrt_instance_save_params(instance, save), save);
    printf("saved %s\n", save);
  }
  free(order);
  mxrt_tensor_release(x);
  mxrt_tensor_release(y);
  mxrt_tensor_release(rate);
  mxrt_tensor_release(p);
  mxrt_instance_release(instance);
  mxrt_model_release(model);
  return 0;
}
