// SPDX-License-Identifier: Apache-2.0
//
// Counted dimensions (model ABI 8, MXRT_DIM_COUNTED and
// mxrt_function_desc.counts), through a hand-written descriptor: an output
// extent only the call finds, sized for its bound before the call and set
// from the function's count after it, through every call path, and the
// table's checks.

#include "TestUtil.h"

#include "mxrt/model_abi.h"

#include <algorithm>
#include <iterator>
#include <vector>

using namespace mxrt_test;
using ::testing::ElementsAre;

namespace {

namespace positive {

// One dimension, K (counted, at most 6), and forward: x (2x3 f32) ->
// kept (K f32), the positive elements of x in order, and where
// (2xK i64), their row and column; written by the function to the front of
// buffers sized for 6, the count after the states.
enum { K };

void forward(void *const *buffers, mxrt_exec_context *ctx) {
  const auto *x = static_cast<const float *>(buffers[0]);
  auto *kept = static_cast<float *>(buffers[1]);
  auto *where = static_cast<int64_t *>(buffers[2]);
  auto *count = static_cast<int64_t *>(buffers[3]); // no parameters, states
  int64_t n = 0;
  for (int64_t i = 0; i < 6; ++i)
    n += x[i] > 0;
  // (2, n) row-major: rows first, then columns.
  int64_t k = 0;
  for (int64_t i = 0; i < 6; ++i)
    if (x[i] > 0) {
      kept[k] = x[i];
      where[k] = i / 3;
      where[n + k] = i % 3;
      ++k;
    }
  *count = n;
  (void)ctx;
}

/// A broken function: finds more than the bound.
void tooMany(void *const *buffers, mxrt_exec_context *) {
  *static_cast<int64_t *>(buffers[3]) = 7;
}

const int64_t shapeX[] = {2, 3};
const int64_t shapeKept[] = {MXRT_DIM_EXTENT(K)};
const int64_t shapeWhere[] = {2, MXRT_DIM_EXTENT(K)};
const mxrt_tensor_desc inputs[] = {{"x", MXRT_F32, 2, shapeX, 0, 24, 0}};
const mxrt_tensor_desc outputs[] = {
    {"kept", MXRT_F32, 1, shapeKept, 0, 4, 0},
    {"where", MXRT_I64, 2, shapeWhere, 0, 16, 0}};
const int64_t counts[] = {K};
const mxrt_function_desc functions[] = {{"forward", 1, inputs, 2, outputs,
                                         forward, 0, 0, 0, nullptr, -1, nullptr,
                                         1, counts}};
const mxrt_dim_desc dims[] = {{"K", 0, 6, MXRT_DIM_DERIVED | MXRT_DIM_COUNTED}};

mxrt_model_desc desc() {
  mxrt_model_desc d = {};
  d.abi_version = MXRT_MODEL_ABI_VERSION;
  d.name = "positive";
  d.num_functions = 1;
  d.functions = functions;
  d.num_dims = 1;
  d.dims = dims;
  return d;
}

ModelPtr open() {
  static const mxrt_model_desc standard = desc();
  mxrt_model *model = nullptr;
  EXPECT_EQ(mxrt_model_from_descriptor(&standard, &model), MXRT_OK)
      << mxrt_last_error();
  return ModelPtr(model);
}

template <typename T> std::vector<T> values(const TensorPtr &t) {
  const T *p = static_cast<const T *>(mxrt_tensor_data(t.get()));
  return std::vector<T>(p, p + mxrt_tensor_num_elements(t.get()));
}

std::vector<int64_t> shape(const TensorPtr &t) {
  const int64_t *s = mxrt_tensor_shape(t.get());
  return std::vector<int64_t>(s, s + mxrt_tensor_ndim(t.get()));
}

} // namespace positive

TEST(CountedDims, InfoAndBindDimsGiveTheBound) {
  ModelPtr model = positive::open();
  ASSERT_TRUE(model);
  mxrt_dim_info dim;
  ASSERT_EQ(mxrt_model_dim_info(model.get(), 0, &dim), MXRT_OK);
  EXPECT_STREQ(dim.name, "K");
  EXPECT_EQ(dim.derived, 1);
  EXPECT_EQ(dim.counted, 1);
  EXPECT_EQ(dim.max, 6);
  TensorPtr x = newTensor(MXRT_F32, {2, 3});
  mxrt_tensor *in[] = {x.get()};
  int64_t bound = -1;
  ASSERT_EQ(mxrt_model_bind_dims(model.get(), 0, in, 1, &bound), MXRT_OK)
      << mxrt_last_error();
  EXPECT_EQ(bound, 6); // what to size the outputs for
}

// The outputs, sized for the bound, come back with the count's shape and
// their elements first; the same tensors serve the next call, whatever it
// finds, and raw calls read the count with mxrt_instance_last_dims.
TEST(CountedDims, CallsSetTheOutputsShapes) {
  ModelPtr model = positive::open();
  InstancePtr instance = model ? newInstance(model.get()) : InstancePtr();
  ASSERT_TRUE(model && instance);
  int64_t last = 0;
  ASSERT_EQ(mxrt_instance_last_dims(instance.get(), &last), MXRT_OK);
  EXPECT_EQ(last, -1); // no call yet
  TensorPtr x = newTensor(MXRT_F32, {2, 3});
  TensorPtr kept = newTensor(MXRT_F32, {6});
  TensorPtr where = newTensor(MXRT_I64, {2, 6});
  mxrt_tensor *in[] = {x.get()}, *out[] = {kept.get(), where.get()};
  auto *xs = static_cast<float *>(mxrt_tensor_data(x.get()));
  const float first[] = {1, -1, 2, 0, 3, -4};
  std::copy(std::begin(first), std::end(first), xs);
  ASSERT_EQ(mxrt_instance_run(instance.get(), in, 1, out, 2), MXRT_OK)
      << mxrt_last_error();
  EXPECT_THAT(positive::shape(kept), ElementsAre(3));
  EXPECT_THAT(positive::values<float>(kept), ElementsAre(1, 2, 3));
  EXPECT_THAT(positive::shape(where), ElementsAre(2, 3));
  EXPECT_THAT(positive::values<int64_t>(where), ElementsAre(0, 0, 1, 0, 2, 1));
  ASSERT_EQ(mxrt_instance_last_dims(instance.get(), &last), MXRT_OK);
  EXPECT_EQ(last, 3);

  // Again with the same tensors: all six, then none.
  std::fill(xs, xs + 6, 5.0f);
  ASSERT_EQ(mxrt_instance_call(instance.get(), 0, in, 1, out, 2), MXRT_OK)
      << mxrt_last_error();
  EXPECT_THAT(positive::shape(where), ElementsAre(2, 6));
  std::fill(xs, xs + 6, -5.0f);
  ASSERT_EQ(mxrt_instance_run(instance.get(), in, 1, out, 2), MXRT_OK)
      << mxrt_last_error();
  EXPECT_THAT(positive::shape(kept), ElementsAre(0));
  EXPECT_THAT(positive::shape(where), ElementsAre(2, 0));

  // Raw: buffers for the bound, the count from the instance.
  float keptRaw[6] = {};
  int64_t whereRaw[12] = {};
  const void *rawIn[] = {first};
  void *rawOut[] = {keptRaw, whereRaw};
  ASSERT_EQ(mxrt_instance_run_raw(instance.get(), rawIn, rawOut), MXRT_OK)
      << mxrt_last_error();
  ASSERT_EQ(mxrt_instance_last_dims(instance.get(), &last), MXRT_OK);
  EXPECT_EQ(last, 3);
  EXPECT_EQ(keptRaw[2], 3.0f);

  // An output too small for the bound is refused before anything runs.
  TensorPtr small = newTensor(MXRT_F32, {3});
  mxrt_tensor *shortOut[] = {small.get(), where.get()};
  EXPECT_EQ(mxrt_instance_run(instance.get(), in, 1, shortOut, 2),
            MXRT_INVALID_ARGUMENT);
  EXPECT_THAT(mxrt_last_error(), ::testing::HasSubstr("output 'kept'"));
}

TEST(CountedDims, ACountPastTheBoundFailsTheCall) {
  mxrt_function_desc fn = positive::functions[0];
  fn.entry = positive::tooMany;
  mxrt_model_desc d = positive::desc();
  d.functions = &fn;
  mxrt_model *raw = nullptr;
  ASSERT_EQ(mxrt_model_from_descriptor(&d, &raw), MXRT_OK) << mxrt_last_error();
  ModelPtr model(raw);
  InstancePtr instance = newInstance(model.get());
  TensorPtr x = newTensor(MXRT_F32, {2, 3});
  TensorPtr kept = newTensor(MXRT_F32, {6}),
            where = newTensor(MXRT_I64, {2, 6});
  mxrt_tensor *in[] = {x.get()}, *out[] = {kept.get(), where.get()};
  EXPECT_EQ(mxrt_instance_run(instance.get(), in, 1, out, 2), MXRT_INTERNAL);
  EXPECT_THAT(mxrt_last_error(),
              ::testing::HasSubstr("found 7 for dimension K, outside 0..6"));
}

TEST(CountedDims, FromDescriptorValidatesCounts) {
  mxrt_dim_desc dims[1];
  mxrt_function_desc fn;
  mxrt_model_desc d;
  int64_t counts[1];
  auto restore = [&] {
    dims[0] = positive::dims[0];
    fn = positive::functions[0];
    counts[0] = positive::K;
    fn.counts = counts;
    d = positive::desc();
    d.dims = dims;
    d.functions = &fn;
  };
  auto refused = [&](const char *words) {
    expectRefused(d, words);
    restore();
  };
  restore();
  dims[0].max = -1;
  refused("counted dimension 'K' must be derived and bounded");
  dims[0].flags = MXRT_DIM_COUNTED;
  refused("counted dimension 'K' must be derived and bounded");
  fn.num_counts = 0;
  refused("output 'kept' of function 'forward' has counted dimension 'K', "
          "which none of its counts gives");
  counts[0] = 3;
  refused("count #0 of function 'forward' names dimension 3, which is not a "
          "counted dimension of its own");
  fn.shapes = [](int64_t *) -> int64_t { return 0; };
  refused("function 'forward' has counts, which a function with variants or "
          "shapes, or of a CUDA model, may not have");
}

} // namespace
