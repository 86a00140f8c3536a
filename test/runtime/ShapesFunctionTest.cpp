// SPDX-License-Identifier: Apache-2.0
//
// Dynamic dimensions of a function compiled once with its dynamic extents in
// the code (model ABI 6, mxrt_function_desc.shapes), through a hand-written
// descriptor: binding any axis of any input, the derived dimensions its
// shapes function computes, runs at several sizes through every call path,
// the checks before a call, and the table's checks.

#include "TestUtil.h"

#include "mxrt/model_abi.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

using namespace mxrt_test;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StrEq;

namespace {

namespace window {

// Dimensions H (0..16), W (1 and up) and the derived OH = H - 1, and two
// functions:
//   forward: x (HxW f32), bias (W f32) -> y (OHxW f32)
//            y[i][j] = x[i][j] + x[i+1][j] + bias[j]
//            reading H, W and OH from its context, in a scratch of 256 bytes
//            (its static part) and 4 H W (a buffer of x's size), all of which
//            it writes;
//   twice:   v (4 f32) -> w (4 f32) = 2 v, of static shapes.

enum { H, W, OH };
constexpr int64_t staticScratch = 256;
/// What the last calls saw: shapes calls, entry calls, the dimensions'
/// values forward's context gave and its scratch, and whether twice's
/// context had no dimensions.
int shapesCalls = 0, forwardCalls = 0;
std::vector<int64_t> seen;
uint8_t *lastScratch = nullptr;
bool twiceSawNoDims = false;

int64_t scratchFor(const int64_t *dims) {
  return staticScratch + 4 * dims[H] * dims[W];
}

int64_t shapes(int64_t *dims) {
  ++shapesCalls;
  dims[OH] = dims[H] - 1;
  return scratchFor(dims);
}

/// Broken shapes functions: one sets a dimension the inputs bind, one asks
/// for less than no scratch.
int64_t shapesChangingW(int64_t *dims) {
  dims[OH] = dims[H] - 1;
  dims[W] = 99;
  return staticScratch;
}
int64_t shapesWithNegativeScratch(int64_t *dims) {
  dims[OH] = dims[H] - 1;
  return -8;
}

void forward(void *const *buffers, mxrt_exec_context *ctx) {
  ++forwardCalls;
  const int64_t *dims = ctx->dims;
  seen.assign(dims, dims + 3);
  const auto *x = static_cast<const float *>(buffers[0]);
  const auto *bias = static_cast<const float *>(buffers[1]);
  auto *y = static_cast<float *>(buffers[2]);
  // All the scratch the shapes function asked for: a short one shows in
  // sanitized builds, a missing one as -1s.
  bool scratch =
      ctx->scratch && reinterpret_cast<uintptr_t>(ctx->scratch) % 64 == 0;
  if (scratch)
    std::memset(ctx->scratch, 0x5a, size_t(scratchFor(dims)));
  lastScratch = ctx->scratch;
  for (int64_t i = 0; i < dims[OH]; ++i)
    for (int64_t j = 0; j < dims[W]; ++j)
      y[i * dims[W] + j] =
          scratch ? x[i * dims[W] + j] + x[(i + 1) * dims[W] + j] + bias[j]
                  : -1.0f;
}

void twice(void *const *buffers, mxrt_exec_context *ctx) {
  twiceSawNoDims = ctx->dims == nullptr;
  const auto *v = static_cast<const float *>(buffers[0]);
  auto *w = static_cast<float *>(buffers[1]);
  for (int i = 0; i < 4; ++i)
    w[i] = 2 * v[i];
}

const int64_t shapeHxW[] = {MXRT_DIM_EXTENT(H), MXRT_DIM_EXTENT(W)};
const int64_t shapeW[] = {MXRT_DIM_EXTENT(W)};
const int64_t shapeOHxW[] = {MXRT_DIM_EXTENT(OH), MXRT_DIM_EXTENT(W)};
const int64_t shape4[] = {4};
const mxrt_tensor_desc forwardInputs[] = {
    {"x", MXRT_F32, 2, shapeHxW, 0, 4, 0},
    {"bias", MXRT_F32, 1, shapeW, 0, 4, 0}};
const mxrt_tensor_desc forwardOutputs[] = {
    {"y", MXRT_F32, 2, shapeOHxW, 0, 4, 0}};
const mxrt_tensor_desc twiceInputs[] = {{"v", MXRT_F32, 1, shape4, 0, 16, 0}};
const mxrt_tensor_desc twiceOutputs[] = {{"w", MXRT_F32, 1, shape4, 0, 16, 0}};
const mxrt_function_desc functions[] = {
    {"forward", 2, forwardInputs, 1, forwardOutputs, forward, staticScratch, 0,
     0, nullptr, -1, shapes},
    {"twice", 1, twiceInputs, 1, twiceOutputs, twice, 0, 0, 0, nullptr, -1,
     nullptr}};
const mxrt_dim_desc dims[] = {
    {"H", 0, 16, 0}, {"W", 1, -1, 0}, {"OH", 0, -1, MXRT_DIM_DERIVED}};

mxrt_model_desc desc() {
  mxrt_model_desc d = {};
  d.abi_version = MXRT_MODEL_ABI_VERSION;
  d.name = "window";
  d.num_functions = 2;
  d.functions = functions;
  d.num_dims = 3;
  d.dims = dims;
  return d;
}

ModelPtr open(const mxrt_model_desc *table = nullptr) {
  static const mxrt_model_desc standard = desc();
  mxrt_model *model = nullptr;
  EXPECT_EQ(mxrt_model_from_descriptor(table ? table : &standard, &model),
            MXRT_OK)
      << mxrt_last_error();
  return ModelPtr(model);
}

constexpr float sentinel = -7777.0f;

float *at(const TensorPtr &t) {
  return static_cast<float *>(mxrt_tensor_data(t.get()));
}

/// forward's tensors for an input of h x w: x[i][j] = i * i + j / 4,
/// bias[j] = 10 j, and y of `yRows` rows (h - 1 by default) holding a
/// sentinel.
struct Tensors {
  int64_t h, w;
  TensorPtr x, bias, y;

  Tensors(int64_t rows, int64_t cols, int64_t yRows = -1)
      : h(rows), w(cols), x(newTensor(MXRT_F32, {rows, cols})),
        bias(newTensor(MXRT_F32, {cols})),
        y(newTensor(MXRT_F32, {yRows < 0 ? rows - 1 : yRows, cols})) {
    for (int64_t i = 0; i < h; ++i)
      for (int64_t j = 0; j < w; ++j)
        at(x)[i * w + j] = float(i * i) + float(j) / 4;
    for (int64_t j = 0; j < w; ++j)
      at(bias)[j] = float(10 * j);
    std::fill(at(y), at(y) + mxrt_tensor_num_elements(y.get()), sentinel);
  }
  mxrt_status run(mxrt_instance *instance) {
    mxrt_tensor *inputs[] = {x.get(), bias.get()};
    mxrt_tensor *outputs[] = {y.get()};
    return mxrt_instance_run(instance, inputs, 2, outputs, 1);
  }
  /// Expects the first `rows` rows of y computed (h - 1 by default), the
  /// others untouched.
  void expectComputed(int64_t rows = -1) {
    if (rows < 0)
      rows = h - 1;
    int64_t yRows = mxrt_tensor_shape(y.get())[0];
    for (int64_t i = 0; i < yRows; ++i)
      for (int64_t j = 0; j < w; ++j) {
        float expected =
            i >= rows ? sentinel
                      : at(x)[i * w + j] + at(x)[(i + 1) * w + j] + at(bias)[j];
        ASSERT_EQ(at(y)[i * w + j], expected)
            << "y[" << i << "][" << j << "] of " << h << "x" << w;
      }
  }
};

} // namespace window

TEST(ShapesFunction, InfoShowsDerivedDimensions) {
  ModelPtr model = window::open();
  ASSERT_TRUE(model);
  ASSERT_EQ(mxrt_model_num_dims(model.get()), 3);
  mxrt_dim_info dim;
  ASSERT_EQ(mxrt_model_dim_info(model.get(), 0, &dim), MXRT_OK);
  EXPECT_STREQ(dim.name, "H");
  EXPECT_EQ(dim.max, 16);
  EXPECT_EQ(dim.derived, 0);
  ASSERT_EQ(mxrt_model_dim_info(model.get(), 2, &dim), MXRT_OK);
  EXPECT_STREQ(dim.name, "OH");
  EXPECT_EQ(dim.min, 0);
  EXPECT_EQ(dim.max, -1);
  EXPECT_EQ(dim.derived, 1);
  mxrt_tensor_info info;
  ASSERT_EQ(mxrt_model_output_info(model.get(), 0, &info), MXRT_OK);
  EXPECT_EQ(info.shape[0], MXRT_DIM_EXTENT(window::OH));
  EXPECT_EQ(info.shape[1], MXRT_DIM_EXTENT(window::W));
}

// One compiled function runs any size: the inputs bind H and W on any axis,
// the shapes function derives OH, and the entry reads all three from its
// context. A static function of the same model gets no dimensions.
TEST(ShapesFunction, RunComputesAtAnySize) {
  ModelPtr model = window::open();
  InstancePtr instance = model ? newInstance(model.get()) : InstancePtr();
  ASSERT_TRUE(model && instance);
  const std::vector<std::pair<int64_t, int64_t>> sizes = {
      {5, 3}, {2, 7}, {16, 1}};
  for (auto [h, w] : sizes) {
    window::Tensors t(h, w);
    window::forwardCalls = 0;
    ASSERT_EQ(t.run(instance.get()), MXRT_OK) << mxrt_last_error();
    t.expectComputed();
    EXPECT_EQ(window::forwardCalls, 1);
    EXPECT_THAT(window::seen, ElementsAre(h, w, h - 1));
  }
  // mxrt_instance_call takes the same path.
  window::Tensors t(9, 2);
  mxrt_tensor *inputs[] = {t.x.get(), t.bias.get()}, *outputs[] = {t.y.get()};
  ASSERT_EQ(mxrt_instance_call(instance.get(), 0, inputs, 2, outputs, 1),
            MXRT_OK)
      << mxrt_last_error();
  t.expectComputed();

  TensorPtr v = newTensor(MXRT_F32, {4}), w = newTensor(MXRT_F32, {4});
  std::fill(window::at(v), window::at(v) + 4, 1.5f);
  mxrt_tensor *in[] = {v.get()}, *out[] = {w.get()};
  window::twiceSawNoDims = false;
  ASSERT_EQ(mxrt_instance_call(instance.get(), 1, in, 1, out, 1), MXRT_OK)
      << mxrt_last_error();
  EXPECT_TRUE(window::twiceSawNoDims);
  EXPECT_EQ(window::at(w)[3], 3.0f);
  // H = 1 leaves OH = 0: an empty output, which the entry fills with nothing.
  window::Tensors one(1, 3);
  ASSERT_EQ(one.run(instance.get()), MXRT_OK) << mxrt_last_error();
  EXPECT_THAT(window::seen, ElementsAre(1, 3, 0));
}

TEST(ShapesFunction, BindDimsDerivesTheOutputsExtents) {
  ModelPtr model = window::open();
  ASSERT_TRUE(model);
  TensorPtr x = newTensor(MXRT_F32, {5, 3}), bias = newTensor(MXRT_F32, {3});
  int64_t values[3] = {99, 99, 99};
  mxrt_tensor *inputs[] = {x.get(), bias.get()};
  ASSERT_EQ(mxrt_model_bind_dims(model.get(), 0, inputs, 2, values), MXRT_OK)
      << mxrt_last_error();
  EXPECT_THAT(values, ElementsAre(5, 3, 4));
  mxrt_tensor_info info;
  ASSERT_EQ(mxrt_model_output_info(model.get(), 0, &info), MXRT_OK);
  int64_t shape[2] = {};
  mxrt_resolve_shape(&info, values, shape);
  EXPECT_THAT(shape, ElementsAre(4, 3));
  // Without x, H is unknown and so is OH; bias still gives W.
  mxrt_tensor *biasOnly[] = {nullptr, bias.get()};
  ASSERT_EQ(mxrt_model_bind_dims(model.get(), 0, biasOnly, 2, values), MXRT_OK);
  EXPECT_THAT(values, ElementsAre(-1, 3, -1));
  // The static function uses none.
  TensorPtr v = newTensor(MXRT_F32, {4});
  mxrt_tensor *twiceInputs[] = {v.get()};
  ASSERT_EQ(mxrt_model_bind_dims(model.get(), 1, twiceInputs, 1, values),
            MXRT_OK);
  EXPECT_THAT(values, ElementsAre(-1, -1, -1));

  auto expectRefused = [&](mxrt_tensor *first, mxrt_tensor *second,
                           const char *message) {
    int64_t untouched[3] = {42, 42, 42};
    mxrt_tensor *in[] = {first, second};
    EXPECT_EQ(mxrt_model_bind_dims(model.get(), 0, in, 2, untouched),
              MXRT_INVALID_ARGUMENT);
    EXPECT_THAT(mxrt_last_error(), StrEq(message));
    EXPECT_THAT(untouched, ElementsAre(42, 42, 42));
  };
  TensorPtr tall = newTensor(MXRT_F32, {17, 3}),
            bias4 = newTensor(MXRT_F32, {4}),
            empty = newTensor(MXRT_F32, {0, 3}),
            narrow = newTensor(MXRT_F32, {5, 0});
  expectRefused(tall.get(), bias.get(),
                "input 'x' axis 0 (dimension H) is 17, above its bound 16");
  expectRefused(x.get(), bias4.get(),
                "input 'bias' axis 0 (dimension W) is 4, but input 'x' gave "
                "W = 3");
  expectRefused(narrow.get(), nullptr,
                "input 'x' axis 1 (dimension W) is 0, below its minimum 1");
  expectRefused(empty.get(), bias.get(),
                "output 'y' axis 0 (dimension OH) would be -1 for H = 0, W = "
                "3: the inputs are too small for function 'forward' of model "
                "'window'");
}

// Every check comes before the entry runs, so that a refused call leaves the
// outputs as they were.
TEST(ShapesFunction, RunChecksEveryShapeBeforeRunning) {
  ModelPtr model = window::open();
  InstancePtr instance = model ? newInstance(model.get()) : InstancePtr();
  ASSERT_TRUE(model && instance);
  window::Tensors t(5, 3);
  mxrt_tensor *x = t.x.get(), *bias = t.bias.get(), *y = t.y.get();
  TensorPtr tall = newTensor(MXRT_F32, {17, 3}),
            bias4 = newTensor(MXRT_F32, {4}),
            empty = newTensor(MXRT_F32, {0, 3}),
            y5 = newTensor(MXRT_F32, {5, 3}), y44 = newTensor(MXRT_F32, {4, 4}),
            flat = newTensor(MXRT_F32, {12}), y64 = newTensor(MXRT_F64, {4, 3});
  window::forwardCalls = 0;
  auto expectRefused = [&](std::vector<mxrt_tensor *> in,
                           std::vector<mxrt_tensor *> out,
                           const char *message) {
    EXPECT_EQ(mxrt_instance_run(instance.get(), in.data(), int32_t(in.size()),
                                out.data(), int32_t(out.size())),
              MXRT_INVALID_ARGUMENT);
    EXPECT_THAT(mxrt_last_error(), StrEq(message));
  };
  expectRefused({tall.get(), bias}, {y},
                "input 'x' axis 0 (dimension H) is 17, above its bound 16");
  expectRefused({x, bias4.get()}, {y},
                "input 'bias' axis 0 (dimension W) is 4, but input 'x' gave "
                "W = 3");
  expectRefused({empty.get(), bias}, {y},
                "output 'y' axis 0 (dimension OH) would be -1 for H = 0, W = "
                "3: the inputs are too small for function 'forward' of model "
                "'window'");
  expectRefused({x, bias}, {y5.get()},
                "output 'y' axis 0 (dimension OH) is 5, but the inputs' shapes "
                "give OH = 4");
  expectRefused({x, bias}, {y44.get()},
                "output 'y' axis 1 (dimension W) is 4, but input 'x' gave "
                "W = 3");
  expectRefused({x, bias}, {flat.get()},
                "output 'y': expected shape OHxW float32, got 12 float32");
  expectRefused({x, bias}, {y64.get()},
                "output 'y': expected shape OHxW float32, got 4x3 float64");
  EXPECT_EQ(window::forwardCalls, 0);
  t.expectComputed(0);
  ASSERT_EQ(t.run(instance.get()), MXRT_OK) << mxrt_last_error();
  t.expectComputed();
}

// The raw call takes the values of the dimensions the inputs have from the
// caller and computes the derived ones itself, whatever the caller gave.
TEST(ShapesFunction, RunRawDimsDerivesWhatTheCallerGave) {
  ModelPtr model = window::open();
  InstancePtr instance = model ? newInstance(model.get()) : InstancePtr();
  ASSERT_TRUE(model && instance);
  // y has room for 5 rows: the 5th must stay untouched.
  window::Tensors t(5, 3, 5);
  const void *inputs[] = {window::at(t.x), window::at(t.bias)};
  void *outputs[] = {window::at(t.y)};
  const int64_t wrongOH[] = {5, 3, 5};
  window::shapesCalls = window::forwardCalls = 0;
  ASSERT_EQ(
      mxrt_instance_run_raw_dims(instance.get(), wrongOH, inputs, outputs),
      MXRT_OK)
      << mxrt_last_error();
  EXPECT_EQ(window::shapesCalls, 1);
  EXPECT_THAT(window::seen, ElementsAre(5, 3, 4));
  t.expectComputed(4);

  window::Tensors small(3, 2, 5);
  inputs[0] = window::at(small.x);
  inputs[1] = window::at(small.bias);
  outputs[0] = window::at(small.y);
  const int64_t three[] = {3, 2, -1};
  ASSERT_EQ(mxrt_instance_run_raw_dims(instance.get(), three, inputs, outputs),
            MXRT_OK)
      << mxrt_last_error();
  EXPECT_THAT(window::seen, ElementsAre(3, 2, 2));
  small.expectComputed(2);

  window::forwardCalls = 0;
  const int64_t tall[] = {17, 3, 16}, none[] = {5, 0, 4}, empty[] = {0, 3, 0};
  EXPECT_EQ(mxrt_instance_run_raw_dims(instance.get(), tall, inputs, outputs),
            MXRT_INVALID_ARGUMENT);
  EXPECT_THAT(mxrt_last_error(),
              StrEq("mxrt_instance_run_raw_dims: dimension H of model "
                    "'window' is 17, above its bound 16"));
  EXPECT_EQ(mxrt_instance_run_raw_dims(instance.get(), none, inputs, outputs),
            MXRT_INVALID_ARGUMENT);
  EXPECT_THAT(mxrt_last_error(), HasSubstr("dimension W of model 'window' is "
                                           "0, below its minimum 1"));
  EXPECT_EQ(mxrt_instance_run_raw_dims(instance.get(), empty, inputs, outputs),
            MXRT_INVALID_ARGUMENT);
  EXPECT_THAT(mxrt_last_error(),
              StrEq("mxrt_instance_run_raw_dims: output 'y' axis 0 "
                    "(dimension OH) would be -1 for H = 0, W = 3: the inputs "
                    "are too small for function 'forward' of model "
                    "'window'"));
  EXPECT_EQ(
      mxrt_instance_run_raw_dims(instance.get(), nullptr, inputs, outputs),
      MXRT_INVALID_ARGUMENT);
  EXPECT_THAT(mxrt_last_error(),
              HasSubstr("dims is NULL, but model 'window' has dynamic "
                        "dimensions"));
  EXPECT_EQ(mxrt_instance_run_raw(instance.get(), inputs, outputs),
            MXRT_INVALID_ARGUMENT);
  EXPECT_THAT(mxrt_last_error(),
              StrEq("mxrt_instance_run_raw: model 'window' has dynamic "
                    "dimension 'H'; call mxrt_instance_run_raw_dims with its "
                    "value"));
  EXPECT_EQ(window::forwardCalls, 0);
  small.expectComputed(2);
}

// The instance's scratch grows to what the shapes function asks for at the
// extents of a call, when a call first needs more; steady calls, and calls
// at smaller extents, keep it.
TEST(ShapesFunction, ScratchGrowsWithTheExtents) {
  ModelPtr model = window::open();
  InstancePtr instance = model ? newInstance(model.get()) : InstancePtr();
  ASSERT_TRUE(model && instance);
  window::Tensors small(2, 2), large(16, 300);
  ASSERT_EQ(small.run(instance.get()), MXRT_OK) << mxrt_last_error();
  small.expectComputed();
  ASSERT_EQ(large.run(instance.get()), MXRT_OK) << mxrt_last_error();
  large.expectComputed();
  uint8_t *grown = window::lastScratch;
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(small.run(instance.get()), MXRT_OK);
    EXPECT_EQ(window::lastScratch, grown);
    ASSERT_EQ(large.run(instance.get()), MXRT_OK);
    EXPECT_EQ(window::lastScratch, grown);
  }
  small.expectComputed();
  large.expectComputed();
}

// A shapes function that sets a dimension the inputs bind would make the
// entry read extents its buffers do not have, and one that asks for less
// than no scratch is broken: the call fails instead.
TEST(ShapesFunction, BrokenShapesFunctionsFailTheCall) {
  mxrt_function_desc functions[2];
  std::copy(std::begin(window::functions), std::end(window::functions),
            functions);
  mxrt_model_desc desc = window::desc();
  desc.functions = functions;
  auto expectInternal = [&](mxrt_shapes_fn shapes, const char *message) {
    functions[0].shapes = shapes;
    ModelPtr model = window::open(&desc);
    InstancePtr instance = model ? newInstance(model.get()) : InstancePtr();
    ASSERT_TRUE(model && instance);
    window::Tensors t(5, 3);
    window::forwardCalls = 0;
    EXPECT_EQ(t.run(instance.get()), MXRT_INTERNAL);
    EXPECT_THAT(mxrt_last_error(), StrEq(message));
    EXPECT_EQ(window::forwardCalls, 0);
    t.expectComputed(0);
  };
  expectInternal(window::shapesChangingW,
                 "function 'forward' of model 'window': its shapes function "
                 "changed dimension W from 3 to 99 (only derived dimensions "
                 "are its to set)");
  expectInternal(window::shapesWithNegativeScratch,
                 "function 'forward' of model 'window': its shapes function "
                 "asked for -8 bytes of scratch for H = 5, W = 3");
}

// A derived dimension with a bound (a key/value cache's length after the
// call, mxc --kv-cache=in-place) is checked on every call: above it, the
// call fails before the function runs, naming the dimension and the values.
TEST(ShapesFunction, BoundedDerivedDimensionIsChecked) {
  mxrt_dim_desc dims[3];
  std::copy(std::begin(window::dims), std::end(window::dims), dims);
  mxrt_model_desc desc = window::desc();
  desc.dims = dims;
  window::Tensors t(5, 3); // OH = 4
  for (int64_t bound : {4, 3}) {
    dims[2].max = bound;
    ModelPtr model = window::open(&desc);
    InstancePtr instance = model ? newInstance(model.get()) : InstancePtr();
    ASSERT_TRUE(model && instance);
    window::forwardCalls = 0;
    if (bound == 4) {
      EXPECT_EQ(t.run(instance.get()), MXRT_OK) << mxrt_last_error();
      EXPECT_EQ(window::forwardCalls, 1);
      continue;
    }
    EXPECT_EQ(t.run(instance.get()), MXRT_INVALID_ARGUMENT);
    EXPECT_THAT(mxrt_last_error(),
                HasSubstr("dimension OH would be 4 for H = 5, W = 3, above "
                          "its bound 3"));
    EXPECT_EQ(window::forwardCalls, 0);
  }
}

TEST(ShapesFunction, FromDescriptorValidatesDerivedDimensionsAndShapes) {
  // The tables copied, for one field of them at a time to be broken.
  mxrt_dim_desc dims[3];
  mxrt_tensor_desc inputs[2], outputs[1];
  mxrt_function_desc functions[2];
  mxrt_model_desc desc;
  auto restore = [&] {
    std::copy(std::begin(window::dims), std::end(window::dims), dims);
    std::copy(std::begin(window::forwardInputs),
              std::end(window::forwardInputs), inputs);
    outputs[0] = window::forwardOutputs[0];
    std::copy(std::begin(window::functions), std::end(window::functions),
              functions);
    functions[0].inputs = inputs;
    functions[0].outputs = outputs;
    desc = window::desc();
    desc.dims = dims;
    desc.functions = functions;
  };
  restore();
  mxrt_model *model = nullptr;
  ASSERT_EQ(mxrt_model_from_descriptor(&desc, &model), MXRT_OK)
      << mxrt_last_error();
  mxrt_model_release(model);
  auto expectRefusedThenRestore = [&](const char *words) {
    expectRefused(desc, words);
    restore();
  };

  dims[2].flags = MXRT_DIM_COUNTED;
  expectRefusedThenRestore("counted dimension 'OH' must be derived and "
                           "bounded (flags 0x2, max -1)");
  dims[2].flags = MXRT_DIM_DERIVED | 4;
  expectRefusedThenRestore("dimension 'OH' has flags 0x5, but only 0x3 are "
                           "allowed");
  dims[2].min = 1;
  expectRefusedThenRestore("derived dimension 'OH' has bounds 1..-1; a "
                           "derived dimension's minimum is 0");
  const int64_t derivedInput[] = {MXRT_DIM_EXTENT(window::OH)};
  inputs[1].shape = derivedInput;
  expectRefusedThenRestore("input 'bias' has derived dimension 'OH' on axis "
                           "0; only outputs may have one");
  dims[1].flags = MXRT_DIM_DERIVED;
  dims[1].min = 0;
  expectRefusedThenRestore("input 'x' has derived dimension 'W' on axis 1");
  const int64_t outOfRange[] = {MXRT_DIM_EXTENT(window::H), MXRT_DIM_EXTENT(3)};
  outputs[0].shape = outOfRange;
  expectRefusedThenRestore("output 'y' has dynamic extent -4 on axis 1, but "
                           "the model has 3 dimensions");
  // A dimension of neither kind that no input has: no call could bind it.
  const int64_t unbound[] = {MXRT_DIM_EXTENT(window::H), 3};
  inputs[0].shape = unbound;
  inputs[0].size_bytes = 12;
  inputs[1].shape = window::shape4;
  inputs[1].size_bytes = 16;
  expectRefusedThenRestore("output 'y' of function 'forward' has dimension "
                           "'W' on axis 1, which is neither derived nor any "
                           "input's");
  const mxrt_variant_desc variants[] = {{1, window::forward, 0}};
  functions[0].num_variants = 1;
  functions[0].variants = variants;
  functions[0].batch_dim = window::H;
  expectRefusedThenRestore("function 'forward' has both a shapes function "
                           "and batch variants (num_variants = 1)");
  functions[0].entry = nullptr;
  expectRefusedThenRestore("function #0 ('forward') has no name or entry "
                           "point");
  // Without `shapes`, today's rules: no dynamic extent at all.
  functions[0].shapes = nullptr;
  expectRefusedThenRestore("input 'x' has dynamic extent -1 on axis 0, but "
                           "only the inputs and outputs of a function with "
                           "variants or shapes may have one");
  // ... and a function with variants cannot take a derived batch dimension.
  dims[0] = {"H", 0, -1, MXRT_DIM_DERIVED};
  functions[0].shapes = nullptr;
  functions[0].num_variants = 1;
  functions[0].variants = variants;
  functions[0].batch_dim = window::H;
  const int64_t rows[] = {MXRT_DIM_EXTENT(window::H), 3};
  inputs[0].shape = rows;
  inputs[0].size_bytes = 12;
  inputs[1].shape = window::shape4;
  inputs[1].size_bytes = 16;
  outputs[0].shape = rows;
  outputs[0].size_bytes = 12;
  expectRefusedThenRestore("input 'x' has derived dimension 'H' on axis 0");

  desc.flags = MXRT_MODEL_CUDA;
  EXPECT_EQ(mxrt_model_from_descriptor(&desc, &model), MXRT_UNSUPPORTED);
  EXPECT_THAT(mxrt_last_error(),
              AllOf(HasSubstr("window"),
                    HasSubstr("dynamic dimensions are not supported for CUDA "
                              "models yet (function 'forward' has a shapes "
                              "function)")));
  restore();
  // A version-5 table (dimensions and functions 8 bytes shorter) is refused,
  // not misread.
  desc.abi_version = 5;
  EXPECT_EQ(mxrt_model_from_descriptor(&desc, &model), MXRT_UNSUPPORTED);
  EXPECT_THAT(mxrt_last_error(),
              AllOf(HasSubstr("ABI version 5"),
                    HasSubstr("supports only version " +
                              std::to_string(MXRT_MODEL_ABI_VERSION))));
}

} // namespace
