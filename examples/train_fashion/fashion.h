/* SPDX-License-Identifier: Apache-2.0
 *
 * What the Fashion-MNIST examples share (train_fashion/train.c,
 * train_dist/train_dist.c, cpp_train/train_mlp.cpp): reading the IDX files,
 * filling batches, the test accuracy of an instance's forward function.
 * Static functions for one program each (C or C++); it defines `program`
 * (its name in messages) first.
 */
#ifndef MXC_EXAMPLES_FASHION_H
#define MXC_EXAMPLES_FASHION_H

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
  fprintf(stderr, "%s: %s\n", program, what);
  exit(1);
}

static void check(mxrt_status status, const char *what) {
  if (status != MXRT_OK) {
    fprintf(stderr, "%s: %s: %s\n", program, what, mxrt_last_error());
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
    fprintf(stderr, "%s: cannot open '%s'\n", program, path);
    exit(1);
  }
  uint8_t header[16];
  int want = 4 + 4 * ndim;
  if (gzread(f, header, want) != want || header[2] != 0x08 ||
      header[3] != ndim) {
    fprintf(stderr, "%s: '%s' is not an IDX file of %d dimensions\n", program,
            path, ndim);
    exit(1);
  }
  int64_t size = 1;
  for (int i = 0; i < ndim; ++i) {
    extents[i] = big_endian(header + 4 + 4 * i);
    size *= extents[i];
  }
  uint8_t *data = (uint8_t *)malloc(size);
  if (!data || gzread(f, data, (unsigned)size) != size) {
    fprintf(stderr, "%s: '%s' is truncated\n", program, path);
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
/* (train_mlp.cpp evaluates through its executor instead.) */
__attribute__((unused)) static double evaluate(mxrt_instance *instance,
                                               const mxrt_model *model,
                                               const dataset *test) {
  mxrt_tensor_info in, out;
  check(mxrt_model_input_info(model, 0, &in), "model input");
  check(mxrt_model_output_info(model, 0, &out), "model output");
  int64_t batch = batch_of(&in, test), classes = out.shape[out.ndim - 1];
  mxrt_tensor *x, *p;
  check(mxrt_tensor_create(MXRT_F32, in.ndim, in.shape, &x), "tensor");
  check(mxrt_tensor_create(MXRT_F32, out.ndim, out.shape, &p), "tensor");
  int64_t *order = (int64_t *)malloc(sizeof(int64_t) * test->count);
  for (int64_t i = 0; i < test->count; ++i)
    order[i] = i;
  int64_t correct = 0, seen = 0;
  for (int64_t first = 0; first + batch <= test->count; first += batch) {
    fill(test, order, first, batch, (float *)mxrt_tensor_data(x), NULL);
    check(mxrt_instance_run(instance, &x, 1, &p, 1), "forward");
    const float *probs = (const float *)mxrt_tensor_data(p);
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

/* The options both programs take. */
typedef struct {
  const char *lib, *dir, *save;
  int epochs;
  double lr;
  int64_t limit, test_limit;
  unsigned seed;
} common_options;

static common_options default_options(void) {
  common_options o = {
      NULL, "/usr/share/datasets/fashion-mnist", NULL, 1, 0.1, 0, 0, 1};
  return o;
}

/* Takes option `a` with value `v` into `o` if it is a common one; 0 if not. */
static int common_option(common_options *o, const char *a, const char *v) {
  if (!strcmp(a, "--lib"))
    o->lib = v;
  else if (!strcmp(a, "--data"))
    o->dir = v;
  else if (!strcmp(a, "--epochs"))
    o->epochs = atoi(v);
  else if (!strcmp(a, "--lr"))
    o->lr = atof(v);
  else if (!strcmp(a, "--limit"))
    o->limit = atoll(v);
  else if (!strcmp(a, "--test-limit"))
    o->test_limit = atoll(v);
  else if (!strcmp(a, "--save"))
    o->save = v;
  else if (!strcmp(a, "--seed"))
    o->seed = (unsigned)atoi(v);
  else
    return 0;
  return 1;
}
#endif /* MXC_EXAMPLES_FASHION_H */
