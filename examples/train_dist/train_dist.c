/* SPDX-License-Identifier: Apache-2.0
 *
 * Data-parallel training of a Fashion-MNIST classifier across processes:
 * every rank (one process under `mpirun -np N`) runs the `grad` function of
 * a library built by `mxc --train` on its shard of each global batch,
 * pushes the gradients to a KVStore (libmxrt_kvstore) and pulls the
 * updated parameters back. With dist_sync the N shard gradients are summed
 * before one update of the global batch's size, so -np 1, 2 and 4 take the
 * same steps (up to float rounding).
 *
 *   mpirun -np N train_dist --lib libnet_train.so --batch GLOBAL
 *          [--data DIR] [--epochs E] [--lr X] [--optimizer
 * sgd|momentum|adam|rmsprop]
 *          [--kvstore dist_sync|dist_async] [--limit N] [--test-limit N]
 *          [--save FILE.params] [--seed S] [--threads T] [--overlap 0|1]
 *
 * The library's batch (its data input's first extent) is GLOBAL / N; each
 * worker's kernels run on T threads (default 1). With --overlap 1 (the
 * default) each gradient is pushed from the instance's output callback as
 * soon as the backward pass has finished it, while the pass goes on. Rank 0
 * prints per epoch its shard's loss and accuracy, the images/s of one
 * worker and of all, and the share of the epoch spent waiting for the
 * store (communication not hidden); then the test accuracy and, with
 * --save, writes the parameters as an MXNet .params file.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
static const char *program = "train_dist";
#include "../train_fashion/fashion.h"

#include <mxrt/kvstore.h>

typedef struct {
  int32_t param;         /* the model's parameter index: the store's key */
  int32_t output;        /* grad's output holding its gradient */
  mxrt_tensor *value;    /* its initial value, for init */
  mxrt_tensor *gradient; /* grad writes it; pushpull returns the update */
  int sent;              /* pushed in this step */
} learned;

static mxrt_kvstore *store;
static learned *params;
static int count, sent;
static int32_t *byOutput; /* grad output -> index in params, or -1 */

static void push(learned *l) {
  /* Earlier-finished gradients (the last layers') go first. */
  check(mxrt_kvstore_pushpull(store, l->param, &l->gradient, 1, &l->gradient, 1,
                              -sent),
        "pushpull");
  l->sent = 1;
  ++sent;
}

/* The output callback: a gradient is final while grad still runs. */
static void ready(void *arg, int32_t function, int32_t output) {
  (void)arg;
  (void)function;
  if (byOutput[output] >= 0)
    push(&params[byOutput[output]]);
}

int main(int argc, char **argv) {
  common_options o = default_options();
  const char *optimizer = "sgd", *type = "dist_sync";
  int64_t global = 0;
  int threads = 1, overlap = 1;
  for (int i = 1; i < argc; i += 2) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!v)
      die("every option takes a value");
    if (common_option(&o, a, v))
      continue;
    if (!strcmp(a, "--batch"))
      global = atoll(v);
    else if (!strcmp(a, "--optimizer"))
      optimizer = v;
    else if (!strcmp(a, "--kvstore"))
      type = v;
    else if (!strcmp(a, "--threads"))
      threads = atoi(v);
    else if (!strcmp(a, "--overlap"))
      overlap = atoi(v);
    else {
      fprintf(stderr, "%s: unknown option '%s'\n", program, a);
      return 1;
    }
  }
  const char *lib = o.lib, *dir = o.dir, *save = o.save;
  int epochs = o.epochs;
  double lr = o.lr;
  int64_t limit = o.limit, test_limit = o.test_limit;
  unsigned seed = o.seed;
  if (!lib || global <= 0)
    die("--lib LIB.so and --batch GLOBAL are required");

  check(mxrt_kvstore_create(type, 0, &store), "mxrt_kvstore_create");
  int32_t rank = mxrt_kvstore_rank(store),
          workers = mxrt_kvstore_num_workers(store);
  mxrt_model *model;
  mxrt_instance *instance;
  check(mxrt_model_open(lib, &model), lib);
  mxrt_instance_options options;
  mxrt_instance_options_init(&options);
  options.num_threads = threads; /* a worker's kernels: one core each */
  check(mxrt_instance_create(model, &options, &instance), "instance");
  int32_t grad;
  if (mxrt_model_find_function(model, "grad", &grad) != MXRT_OK)
    die("the library has no grad function: build it with mxc --train");
  mxrt_tensor_info in, label, out;
  check(mxrt_model_function_input_info(model, grad, 0, &in), "input");
  check(mxrt_model_function_input_info(model, grad, 1, &label), "label");
  check(mxrt_model_function_output_info(model, grad, 0, &out), "output");
  dataset train = load(dir, "train", limit),
          test = load(dir, "t10k", test_limit);
  int64_t batch = batch_of(&in, &train), classes = out.shape[out.ndim - 1];
  if (batch * workers != global) {
    fprintf(stderr,
            "%s: rank %d: the library's batch is %lld, but --batch %lld over "
            "%d workers needs %lld a worker\n",
            program, rank, (long long)batch, (long long)global, workers,
            (long long)(global / workers));
    return 1;
  }

  /* grad's outputs: the model's, then "<param>_grad" for each learned
   * parameter. Each parameter is a key of the store, holding rank 0's
   * initial value on every worker. */
  int32_t outputs = mxrt_model_function_num_outputs(model, grad);
  params = calloc((size_t)outputs, sizeof(learned));
  byOutput = malloc(sizeof(int32_t) * (size_t)outputs);
  mxrt_tensor **results = calloc((size_t)outputs, sizeof(mxrt_tensor *));
  mxrt_optimizer_options rule;
  mxrt_optimizer_options_init(&rule);
  rule.learning_rate = (float)lr;
  rule.rescale_grad = 1.0f / (float)global; /* the loss is summed */
  check(mxrt_kvstore_set_optimizer(store, optimizer, &rule), "optimizer");
  for (int32_t o = 0; o < outputs; ++o) {
    mxrt_tensor_info info;
    check(mxrt_model_function_output_info(model, grad, o, &info), "output");
    check(mxrt_tensor_create(info.dtype, info.ndim, info.shape, &results[o]),
          "tensor");
    size_t n = strlen(info.name);
    byOutput[o] = -1;
    if (o == 0 || n < 6 || strcmp(info.name + n - 5, "_grad"))
      continue;
    byOutput[o] = count;
    char name[512];
    snprintf(name, sizeof name, "%.*s", (int)(n - 5), info.name);
    learned *l = &params[count++];
    l->output = o;
    l->gradient = results[o];
    check(mxrt_model_find_param(model, name, &l->param), name);
    check(mxrt_tensor_create(info.dtype, info.ndim, info.shape, &l->value),
          "tensor");
    check(mxrt_instance_get_param(instance, l->param, l->value), name);
    check(mxrt_kvstore_init(store, l->param, l->value), "init");
  }
  if (count == 0)
    die("grad has no parameter gradients");
  if (overlap)
    check(mxrt_instance_set_output_callback(instance, ready, NULL),
          "output callback");

  mxrt_tensor *x, *y;
  check(mxrt_tensor_create(MXRT_F32, in.ndim, in.shape, &x), "tensor");
  check(mxrt_tensor_create(MXRT_F32, label.ndim, label.shape, &y), "tensor");
  mxrt_tensor *inputs[2] = {x, y};
  int64_t *order = malloc(sizeof(int64_t) * train.count);
  for (int64_t i = 0; i < train.count; ++i)
    order[i] = i;
  srand(seed); /* the same permutations on every rank */
  if (rank == 0)
    printf("training %lld images, global batch %lld on %d workers (%lld "
           "each), %s %s, lr %g, %s\n",
           (long long)train.count, (long long)global, workers, (long long)batch,
           type, optimizer, lr,
           overlap ? "pushes overlapping the backward pass"
                   : "pushes after the backward pass");
  for (int e = 1; e <= epochs; ++e) {
    for (int64_t i = train.count - 1; i > 0; --i) { /* Fisher-Yates */
      int64_t j = rand() % (i + 1), t = order[i];
      order[i] = order[j];
      order[j] = t;
    }
    double loss = 0, start = now(), waiting = 0;
    int64_t correct = 0, seen = 0;
    for (int64_t first = 0; first + global <= train.count; first += global) {
      int64_t mine = first + rank * batch; /* this worker's shard */
      fill(&train, order, mine, batch, mxrt_tensor_data(x),
           mxrt_tensor_data(y));
      /* Each gradient goes out as it is and the updated value comes back
       * into the same tensor (the store reduces it in place): with
       * --overlap 1 from the output callback, as soon as the backward pass
       * has finished it, else after the call. */
      sent = 0;
      check(mxrt_instance_call(instance, grad, inputs, 2, results, outputs),
            "grad");
      for (int k = 0; k < count; ++k)
        if (!params[k].sent)
          push(&params[k]);
      for (int k = 0; k < count; ++k)
        params[k].sent = 0;
      const float *probs = mxrt_tensor_data(results[0]);
      for (int64_t b = 0; b < batch; ++b) {
        int target = train.labels[order[mine + b]];
        loss -= log(fmax(probs[b * classes + target], 1e-12));
        correct += argmax(probs + b * classes, classes) == target;
      }
      seen += batch;
      double wait = now();
      check(mxrt_kvstore_wait_all(store), "kvstore");
      waiting += now() - wait;
      for (int k = 0; k < count; ++k)
        check(mxrt_instance_set_param(instance, params[k].param,
                                      params[k].gradient),
              "set_param");
    }
    double seconds = now() - start;
    if (rank == 0) {
      printf("epoch %d: loss %.4f train accuracy %.4f (rank 0's shard), "
             "%.0f images/s a worker, %.0f in all, %.0f%% waiting for the "
             "store\n",
             e, loss / seen, (double)correct / seen, seen / seconds,
             seen * workers / seconds, 100 * waiting / seconds);
      fflush(stdout);
    }
  }
  check(mxrt_kvstore_barrier(store), "barrier");
  if (rank == 0) {
    printf("test accuracy %.4f\n", evaluate(instance, model, &test));
    if (save) {
      check(mxrt_instance_save_params(instance, save), save);
      printf("saved %s\n", save);
    }
  }
  for (int k = 0; k < count; ++k)
    mxrt_tensor_release(params[k].value);
  for (int32_t o = 0; o < outputs; ++o)
    mxrt_tensor_release(results[o]);
  mxrt_tensor_release(x);
  mxrt_tensor_release(y);
  free(params);
  free(byOutput);
  free(results);
  free(order);
  mxrt_instance_release(instance);
  mxrt_model_release(model);
  mxrt_kvstore_release(store);
  return 0;
}
