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
#include <mxrt/mxrt.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

typedef struct {
  int64_t count, rows, cols;
  uint8_t *pixels; /* count * rows * cols */
  uint8_t *labels; /* count */
} dataset;

static void die(const char *what) {
  fprintf(stderr, "train: %s\n", what);
  exit(1);
}

static void check(mxrt_status status, const char *what) {
  if (status != MXRT_OK) {
    fprintf(stderr, "train: %s: %s\n", what, mxrt_last_error());
    exit(1);
  }
}

static uint32_t big_endian(const uint8_t *b) {
  return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 |
         b[3];
}

/* Reads a gzip-compressed IDX file: `dims` big-endian extents after the
 * magic, then bytes. Returns the data; *count gets dims[0]. */
static uint8_t *read_idx(const char *path, int ndim, int64_t *extents) {
  gzFile f = gzopen(path, "rb");
  if (!f) {
    fprintf(stderr, "train: cannot open '%s'\n", path);
    exit(1);
  }
  uint8_t header[16];
  int want = 4 + 4 * ndim;
  if (gzread(f, header, want) != want || header[2] != 0x08 ||
      header[3] != ndim) {
    fprintf(stderr, "train: '%s' is not an IDX file of %d dimensions\n", path,
            ndim);
    exit(1);
  }
  int64_t size = 1;
  for (int i = 0; i < ndim; ++i) {
    extents[i] = big_endian(header + 4 + 4 * i);
    size *= extents[i];
  }
  uint8_t *data = malloc(size);
  if (!data || gzread(f, data, (unsigned)size) != size) {
    fprintf(stderr, "train: '%s' is truncated\n", path);
    exit(1);
  }
  gzclose(f);
  return data;
}

static dataset load(const char *dir, const char *prefix, int64_t limit) {
  char images[1024], labels[1024];
  snprintf(images, sizeof images, "%s/%s-images-idx3-ubyte.gz", dir, prefix);
  snprintf(labels, sizeof labels, "%s/%s-labels-idx1-ubyte.gz", dir, prefix);
  dataset d;
  int64_t e[3], n;
  d.pixels = read_idx(images, 3, e);
  d.labels = read_idx(labels, 1, &n);
  if (n != e[0])
    die("image and label counts differ");
  d.count = limit > 0 && limit < n ? limit : n;
  d.rows = e[1];
  d.cols = e[2];
  return d;
}

/* The batch that the model's first input takes, checking its shape. */
static int64_t batch_of(const mxrt_tensor_info *info, const dataset *d) {
  int64_t per = 1;
  for (int32_t i = 1; i < info->ndim; ++i)
    per *= info->shape[i];
  if (info->ndim < 2 || per != d->rows * d->cols)
    die("the model's first input is not a batch of 28x28 images");
  return info->shape[0];
}

/* Copies images order[first .. first+batch) into `x` and their labels. */
static void fill(const dataset *d, const int64_t *order, int64_t first,
                 int64_t batch, float *x, float *y) {
  int64_t pixels = d->rows * d->cols;
  for (int64_t b = 0; b < batch; ++b) {
    int64_t k = order[first + b];
    for (int64_t p = 0; p < pixels; ++p)
      x[b * pixels + p] = d->pixels[k * pixels + p] / 255.0f;
    if (y)
      y[b] = d->labels[k];
  }
}

static int argmax(const float *p, int64_t n) {
  int best = 0;
  for (int64_t i = 1; i < n; ++i)
    if (p[i] > p[best])
      best = (int)i;
  return best;
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

/* Accuracy of function `fn` (forward) of `instance` on the test set. */
static double evaluate(mxrt_instance *instance, const mxrt_model *model,
                       const dataset *test) {
  mxrt_tensor_info in, out;
  check(mxrt_model_input_info(model, 0, &in), "model input");
  check(mxrt_model_output_info(model, 0, &out), "model output");
  int64_t batch = batch_of(&in, test), classes = out.shape[out.ndim - 1];
  mxrt_tensor *x, *p;
  check(mxrt_tensor_create(MXRT_F32, in.ndim, in.shape, &x), "tensor");
  check(mxrt_tensor_create(MXRT_F32, out.ndim, out.shape, &p), "tensor");
  int64_t *order = malloc(sizeof(int64_t) * test->count);
  for (int64_t i = 0; i < test->count; ++i)
    order[i] = i;
  int64_t correct = 0, seen = 0;
  for (int64_t first = 0; first + batch <= test->count; first += batch) {
    fill(test, order, first, batch, mxrt_tensor_data(x), NULL);
    check(mxrt_instance_run(instance, &x, 1, &p, 1), "forward");
    const float *probs = mxrt_tensor_data(p);
    for (int64_t b = 0; b < batch; ++b)
      correct += argmax(probs + b * classes, classes) ==
                 test->labels[order[first + b]];
    seen += batch;
  }
  free(order);
  mxrt_tensor_release(x);
  mxrt_tensor_release(p);
  if (seen == 0)
    die("the test set is smaller than one batch");
  return (double)correct / seen;
}

int main(int argc, char **argv) {
  const char *lib = NULL, *dir = "/usr/share/datasets/fashion-mnist",
             *save = NULL;
  int epochs = 1, eval_only = 0;
  double lr = 0.1;
  int64_t limit = 0, test_limit = 0;
  unsigned seed = 1;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--eval")) {
      eval_only = 1;
      continue;
    }
    if (!v)
      die("every option but --eval takes a value");
    if (!strcmp(a, "--lib"))
      lib = v;
    else if (!strcmp(a, "--data"))
      dir = v;
    else if (!strcmp(a, "--epochs"))
      epochs = atoi(v);
    else if (!strcmp(a, "--lr"))
      lr = atof(v);
    else if (!strcmp(a, "--limit"))
      limit = atoll(v);
    else if (!strcmp(a, "--test-limit"))
      test_limit = atoll(v);
    else if (!strcmp(a, "--save"))
      save = v;
    else if (!strcmp(a, "--seed"))
      seed = (unsigned)atoi(v);
    else {
      fprintf(stderr, "train: unknown option '%s'\n", a);
      return 1;
    }
    ++i;
  }
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
      check(mxrt_instance_call(instance, step, inputs, 3, &p, 1),
            "train_step");
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
