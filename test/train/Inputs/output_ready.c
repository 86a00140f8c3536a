/* SPDX-License-Identifier: Apache-2.0
 *
 * Checks the output callback of a library built by `mxc --train`: every
 * gradient output of `grad` is reported exactly once, during the call, and
 * holds its final value when it is reported (the value a call without a
 * callback computes); and the reports come while the backward pass still
 * has gradients to write (at the first report, some other gradient is
 * still untouched), in the order the pass finishes them. Prints the order.
 *
 *   output_ready LIB.so
 */
#include <mxrt/mxrt.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_OUTPUTS 64

typedef struct {
  int32_t grad, outputs;
  mxrt_tensor **results;    /* the call's outputs, zeroed before it */
  mxrt_tensor **reference;  /* a call's outputs without a callback */
  int reports[MAX_OUTPUTS]; /* reports per output */
  int order[MAX_OUTPUTS], reported;
  int untouchedAtFirst; /* gradients still all zero at the first report */
  int failures;
} state;

static void check(mxrt_status status, const char *what) {
  if (status != MXRT_OK) {
    fprintf(stderr, "output_ready: %s: %s\n", what, mxrt_last_error());
    exit(1);
  }
}

static int allZero(mxrt_tensor *t) {
  const unsigned char *p = mxrt_tensor_data(t);
  for (size_t i = 0; i < mxrt_tensor_size_bytes(t); ++i)
    if (p[i])
      return 0;
  return 1;
}

static void ready(void *arg, int32_t function, int32_t output) {
  state *s = arg;
  if (function != s->grad || output < 1 || output >= s->outputs) {
    fprintf(stderr, "report of function %d output %d\n", function, output);
    ++s->failures;
    return;
  }
  if (s->reported == 0)
    for (int32_t o = 1; o < s->outputs; ++o)
      s->untouchedAtFirst += o != output && allZero(s->results[o]);
  ++s->reports[output];
  s->order[s->reported++] = output;
  if (memcmp(mxrt_tensor_data(s->results[output]),
             mxrt_tensor_data(s->reference[output]),
             mxrt_tensor_size_bytes(s->results[output]))) {
    fprintf(stderr, "output %d was reported before its final value\n", output);
    ++s->failures;
  }
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: output_ready LIB.so\n");
    return 2;
  }
  mxrt_model *model;
  mxrt_instance *instance;
  check(mxrt_model_open(argv[1], &model), argv[1]);
  check(mxrt_instance_create(model, NULL, &instance), "instance");
  state s = {0};
  check(mxrt_model_find_function(model, "grad", &s.grad), "grad");
  s.outputs = mxrt_model_function_num_outputs(model, s.grad);
  int32_t inputs = mxrt_model_function_num_inputs(model, s.grad);
  if (s.outputs > MAX_OUTPUTS || inputs > 8)
    return 2;
  mxrt_tensor *in[8];
  for (int32_t i = 0; i < inputs; ++i) {
    mxrt_tensor_info info;
    check(mxrt_model_function_input_info(model, s.grad, i, &info), "input");
    check(mxrt_tensor_create(info.dtype, info.ndim, info.shape, &in[i]),
          "tensor");
    float *x = mxrt_tensor_data(in[i]);
    for (int64_t k = 0; k < mxrt_tensor_num_elements(in[i]); ++k)
      x[k] = i == 0 ? (float)((k * 7919) % 256) / 255.0f : (float)(k % 10);
  }
  s.results = calloc(s.outputs, sizeof(mxrt_tensor *));
  s.reference = calloc(s.outputs, sizeof(mxrt_tensor *));
  for (int32_t o = 0; o < s.outputs; ++o) {
    mxrt_tensor_info info;
    check(mxrt_model_function_output_info(model, s.grad, o, &info), "output");
    check(mxrt_tensor_create(info.dtype, info.ndim, info.shape, &s.results[o]),
          "tensor");
    check(
        mxrt_tensor_create(info.dtype, info.ndim, info.shape, &s.reference[o]),
        "tensor");
    memset(mxrt_tensor_data(s.results[o]), 0,
           mxrt_tensor_size_bytes(s.results[o]));
  }
  check(
      mxrt_instance_call(instance, s.grad, in, inputs, s.reference, s.outputs),
      "grad without a callback");
  check(mxrt_instance_set_output_callback(instance, ready, &s), "callback");
  check(mxrt_instance_call(instance, s.grad, in, inputs, s.results, s.outputs),
        "grad");
  for (int32_t o = 1; o < s.outputs; ++o)
    if (s.reports[o] != 1) {
      fprintf(stderr, "output %d was reported %d times\n", o, s.reports[o]);
      ++s.failures;
    }
  if (s.untouchedAtFirst == 0) {
    fprintf(stderr, "every gradient was written before the first report\n");
    ++s.failures;
  }
  /* Cleared: a call reports nothing. */
  check(mxrt_instance_set_output_callback(instance, NULL, NULL), "clear");
  int before = s.reported;
  check(mxrt_instance_call(instance, s.grad, in, inputs, s.results, s.outputs),
        "grad");
  if (s.reported != before) {
    fprintf(stderr, "a cleared callback was called\n");
    ++s.failures;
  }
  printf("reported in order:");
  for (int i = 0; i < before; ++i)
    printf(" %d", s.order[i]);
  printf("\n%s\n", s.failures ? "FAIL" : "PASS");
  /* Everything released: the sanitized build checks for leaks. */
  for (int32_t i = 0; i < inputs; ++i)
    mxrt_tensor_release(in[i]);
  for (int32_t o = 0; o < s.outputs; ++o) {
    mxrt_tensor_release(s.results[o]);
    mxrt_tensor_release(s.reference[o]);
  }
  free(s.results);
  free(s.reference);
  mxrt_instance_release(instance);
  mxrt_model_release(model);
  return s.failures ? 1 : 0;
}
