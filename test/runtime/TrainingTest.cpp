// SPDX-License-Identifier: Apache-2.0
//
// The training half of the API on hand-written ABI v2 models (TestModels.h):
// function and parameter introspection, calls by function index, per-instance
// parameters and zeroed optimizer states, get/set param, the v2 checks of the
// descriptor, and saving/loading MXNet .params files byte for byte.

#include "TestModels.h"
#include "TestUtil.h"

#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <vector>

using namespace mxrt_test;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::FloatEq;
using ::testing::HasSubstr;
using ::testing::Pointwise;

namespace {

ModelPtr modelFrom(const mxrt_model_desc &desc) {
  mxrt_model *model = nullptr;
  EXPECT_EQ(mxrt_model_from_descriptor(&desc, &model), MXRT_OK)
      << mxrt_last_error();
  return ModelPtr(model);
}

TensorPtr floats(std::vector<int64_t> shape, std::vector<float> values) {
  TensorPtr tensor = newTensor(MXRT_F32, shape);
  EXPECT_EQ(mxrt_tensor_num_elements(tensor.get()), int64_t(values.size()));
  std::memcpy(mxrt_tensor_data(tensor.get()), values.data(), values.size() * 4);
  return tensor;
}

std::vector<float> valuesOf(mxrt_tensor *tensor) {
  const float *data = static_cast<const float *>(mxrt_tensor_data(tensor));
  return std::vector<float>(data, data + mxrt_tensor_num_elements(tensor));
}

/// Parameter `index` of `instance` as float32 values.
std::vector<float> param(const mxrt_instance *instance, int32_t index,
                         std::vector<int64_t> shape) {
  TensorPtr tensor =
      floats(shape, std::vector<float>(shape.empty() ? 1 : shape[0], 0.0f));
  EXPECT_EQ(mxrt_instance_get_param(instance, index, tensor.get()), MXRT_OK)
      << mxrt_last_error();
  return valuesOf(tensor.get());
}

/// The fixed batch the linear model trains on.
struct Batch {
  TensorPtr x = floats({2, 3}, {1, 0, 2, 0, 1, 1});
  TensorPtr label = floats({2}, {10, 4});
  TensorPtr lr = floats({}, {0.1f});
  TensorPtr loss = floats({}, {0});

  mxrt_status trainStep(mxrt_instance *instance, const mxrt_model *model) {
    int32_t function = -1;
    EXPECT_EQ(mxrt_model_find_function(model, "train_step", &function),
              MXRT_OK);
    mxrt_tensor *inputs[] = {x.get(), label.get(), lr.get()};
    mxrt_tensor *outputs[] = {loss.get()};
    return mxrt_instance_call(instance, function, inputs, 3, outputs, 1);
  }
  std::vector<float> forward(mxrt_instance *instance) {
    TensorPtr y = floats({2}, {0, 0});
    mxrt_tensor *inputs[] = {x.get()};
    mxrt_tensor *outputs[] = {y.get()};
    EXPECT_EQ(mxrt_instance_run(instance, inputs, 1, outputs, 1), MXRT_OK)
        << mxrt_last_error();
    return valuesOf(y.get());
  }
};

/// The momentum states of a linear instance (its "states" function).
std::vector<float> momenta(mxrt_instance *instance) {
  TensorPtr w = floats({3}, {-1, -1, -1});
  TensorPtr b = floats({1}, {-1});
  mxrt_tensor *outputs[] = {w.get(), b.get()};
  EXPECT_EQ(mxrt_instance_call(instance, 3, nullptr, 0, outputs, 2), MXRT_OK)
      << mxrt_last_error();
  std::vector<float> result = valuesOf(w.get());
  result.push_back(valuesOf(b.get())[0]);
  return result;
}

TEST(Training, ModelDescribesFunctionsAndParams) {
  mxrt_model_desc desc = linear::desc();
  ModelPtr model = modelFrom(desc);
  ASSERT_TRUE(model);
  ASSERT_EQ(mxrt_model_num_functions(model.get()), 4);
  EXPECT_STREQ(mxrt_model_function_name(model.get(), 0), "forward");
  EXPECT_STREQ(mxrt_model_function_name(model.get(), 2), "train_step");
  EXPECT_EQ(mxrt_model_function_name(model.get(), 4), nullptr);
  EXPECT_EQ(mxrt_model_function_name(model.get(), -1), nullptr);
  EXPECT_EQ(mxrt_model_function_name(nullptr, 0), nullptr);

  int32_t grad =
      expectFinds(mxrt_model_find_function, model.get(), "grad", 1, "backward",
                  "model 'linear' has no function named 'backward'");
  EXPECT_STREQ(mxrt_last_error(),
               "model 'linear' has no function named 'backward'");
  EXPECT_EQ(mxrt_model_find_function(model.get(), nullptr, &grad),
            MXRT_INVALID_ARGUMENT);

  EXPECT_EQ(mxrt_model_function_num_inputs(model.get(), grad), 2);
  EXPECT_EQ(mxrt_model_function_num_outputs(model.get(), grad), 3);
  EXPECT_EQ(mxrt_model_function_num_inputs(model.get(), 9), 0);
  EXPECT_EQ(mxrt_model_function_num_outputs(nullptr, 0), 0);
  // The forward function is still what the v1 accessors describe.
  EXPECT_EQ(mxrt_model_num_inputs(model.get()), 1);
  EXPECT_EQ(mxrt_model_num_outputs(model.get()), 1);

  mxrt_tensor_info info;
  ASSERT_EQ(mxrt_model_function_input_info(model.get(), grad, 1, &info),
            MXRT_OK);
  EXPECT_STREQ(info.name, "label");
  EXPECT_EQ(info.dtype, MXRT_F32);
  ASSERT_EQ(info.ndim, 1);
  EXPECT_EQ(info.shape[0], 2);
  ASSERT_EQ(mxrt_model_function_output_info(model.get(), grad, 0, &info),
            MXRT_OK);
  EXPECT_STREQ(info.name, "loss");
  EXPECT_EQ(info.ndim, 0);
  EXPECT_EQ(mxrt_model_function_output_info(model.get(), grad, 3, &info),
            MXRT_NOT_FOUND);
  EXPECT_THAT(mxrt_last_error(),
              HasSubstr("function 'grad' of model 'linear' has 3 outputs"));
  EXPECT_EQ(mxrt_model_function_input_info(model.get(), 7, 0, &info),
            MXRT_NOT_FOUND);
  EXPECT_THAT(mxrt_last_error(),
              HasSubstr("function index 7 is out of range (model 'linear' "
                        "has 4 functions)"));

  ASSERT_EQ(mxrt_model_num_params(model.get()), 3);
  EXPECT_EQ(mxrt_model_num_params(nullptr), 0);
  ASSERT_EQ(mxrt_model_param_info(model.get(), 2, &info), MXRT_OK);
  EXPECT_STREQ(info.name, "running_mean");
  EXPECT_EQ(info.ndim, 1);
  EXPECT_EQ(info.shape[0], 3);
  EXPECT_EQ(mxrt_model_param_info(model.get(), 3, &info), MXRT_NOT_FOUND);
  EXPECT_EQ(mxrt_model_param_info(model.get(), 0, nullptr),
            MXRT_INVALID_ARGUMENT);
  expectFinds(mxrt_model_find_param, model.get(), "b", 1, "arg:b",
              "model 'linear' has no parameter named 'arg:b'");
  EXPECT_STREQ(mxrt_last_error(),
               "model 'linear' has no parameter named 'arg:b'");
}

TEST(Training, InstancesOwnTheirParameters) {
  mxrt_model_desc desc = linear::desc();
  ModelPtr model = modelFrom(desc);
  ASSERT_TRUE(model);
  InstancePtr trained = newInstance(model.get());
  InstancePtr fresh = newInstance(model.get());
  ASSERT_TRUE(trained && fresh);
  EXPECT_THAT(param(trained.get(), 0, {3}), ElementsAre(1, 2, 3));

  Batch batch;
  // y = (1 + 6 + 0.5, 2 + 3 + 0.5) = (7.5, 5.5); r = (-2.5, 1.5).
  ASSERT_EQ(batch.trainStep(trained.get(), model.get()), MXRT_OK)
      << mxrt_last_error();
  EXPECT_FLOAT_EQ(valuesOf(batch.loss.get())[0], 0.5f * (6.25f + 2.25f));
  // grad_w = (-2.5, 1.5, -5 + 1.5), grad_b = -1; w -= 0.1 grad.
  EXPECT_THAT(param(trained.get(), 0, {3}),
              Pointwise(FloatEq(), {1.25f, 1.85f, 3.35f}));
  EXPECT_THAT(param(trained.get(), 1, {1}), Pointwise(FloatEq(), {0.6f}));
  EXPECT_THAT(param(trained.get(), 2, {3}),
              Pointwise(FloatEq(), {0.05f, 0.05f, 0.15f}));

  // The other instance and the model's weights are untouched.
  EXPECT_THAT(param(fresh.get(), 0, {3}), ElementsAre(1, 2, 3));
  EXPECT_THAT(param(fresh.get(), 2, {3}), ElementsAre(0, 0, 0));
  EXPECT_THAT(linear::weights.w, ElementsAre(1, 2, 3));
  // run calls forward with each instance's own parameters.
  EXPECT_THAT(batch.forward(fresh.get()), ElementsAre(7.5f, 5.5f));
  std::vector<float> y = batch.forward(trained.get());
  EXPECT_FLOAT_EQ(y[0], 1.25f + 2 * 3.35f + 0.6f);
  EXPECT_FLOAT_EQ(y[1], 1.85f + 3.35f + 0.6f);

  // A second instance created after training starts from the weights too.
  InstancePtr later = newInstance(model.get());
  ASSERT_TRUE(later);
  EXPECT_THAT(param(later.get(), 0, {3}), ElementsAre(1, 2, 3));
}

TEST(Training, StatesStartAtZero) {
  mxrt_model_desc desc = linear::desc();
  ModelPtr model = modelFrom(desc);
  InstancePtr instance = model ? newInstance(model.get()) : InstancePtr();
  ASSERT_TRUE(model && instance);
  EXPECT_THAT(momenta(instance.get()), ElementsAre(0, 0, 0, 0));

  Batch batch;
  ASSERT_EQ(batch.trainStep(instance.get(), model.get()), MXRT_OK);
  // Momentum after one step from zero is the gradient.
  EXPECT_THAT(momenta(instance.get()), ElementsAre(-2.5f, 1.5f, -3.5f, -1));
  ASSERT_EQ(batch.trainStep(instance.get(), model.get()), MXRT_OK);
  EXPECT_NE(momenta(instance.get())[3], -1.0f);

  InstancePtr other = newInstance(model.get());
  ASSERT_TRUE(other);
  EXPECT_THAT(momenta(other.get()), ElementsAre(0, 0, 0, 0));
}

TEST(Training, CallChecksFunctionAndTensors) {
  mxrt_model_desc desc = linear::desc();
  ModelPtr model = modelFrom(desc);
  InstancePtr instance = model ? newInstance(model.get()) : InstancePtr();
  ASSERT_TRUE(model && instance);
  Batch batch;
  TensorPtr gradW = floats({3}, {0, 0, 0});
  TensorPtr gradB = floats({1}, {0});
  mxrt_tensor *inputs[] = {batch.x.get(), batch.label.get()};
  mxrt_tensor *outputs[] = {batch.loss.get(), gradW.get(), gradB.get()};

  ASSERT_EQ(mxrt_instance_call(instance.get(), 1, inputs, 2, outputs, 3),
            MXRT_OK)
      << mxrt_last_error();
  EXPECT_FLOAT_EQ(valuesOf(batch.loss.get())[0], 4.25f);
  EXPECT_THAT(valuesOf(gradW.get()), ElementsAre(-2.5f, 1.5f, -3.5f));
  EXPECT_THAT(valuesOf(gradB.get()), ElementsAre(-1));
  // grad does not update parameters.
  EXPECT_THAT(param(instance.get(), 0, {3}), ElementsAre(1, 2, 3));

  EXPECT_EQ(mxrt_instance_call(instance.get(), 4, inputs, 2, outputs, 3),
            MXRT_NOT_FOUND);
  EXPECT_THAT(mxrt_last_error(), HasSubstr("function index 4 is out of range"));
  EXPECT_EQ(mxrt_instance_call(instance.get(), -1, inputs, 2, outputs, 3),
            MXRT_NOT_FOUND);
  EXPECT_EQ(mxrt_instance_call(instance.get(), 1, inputs, 1, outputs, 3),
            MXRT_INVALID_ARGUMENT);
  EXPECT_STREQ(mxrt_last_error(),
               "function 'grad' of model 'linear' takes 2 inputs, got 1");
  EXPECT_EQ(mxrt_instance_call(instance.get(), 1, inputs, 2, outputs, 1),
            MXRT_INVALID_ARGUMENT);
  EXPECT_STREQ(mxrt_last_error(),
               "function 'grad' of model 'linear' produces 3 outputs, got 1");

  TensorPtr longLabel = floats({3}, {0, 0, 0});
  mxrt_tensor *badInputs[] = {batch.x.get(), longLabel.get()};
  EXPECT_EQ(mxrt_instance_call(instance.get(), 1, badInputs, 2, outputs, 3),
            MXRT_INVALID_ARGUMENT);
  EXPECT_STREQ(mxrt_last_error(),
               "input 'label': expected shape 2 float32, got 3 float32");
  mxrt_tensor *badOutputs[] = {batch.loss.get(), gradB.get(), gradB.get()};
  EXPECT_EQ(mxrt_instance_call(instance.get(), 1, inputs, 2, badOutputs, 3),
            MXRT_INVALID_ARGUMENT);
  EXPECT_STREQ(mxrt_last_error(),
               "output 'grad_w': expected shape 3 float32, got 1 float32");
  mxrt_tensor *nullOutput[] = {batch.loss.get(), gradW.get(), nullptr};
  EXPECT_EQ(mxrt_instance_call(instance.get(), 1, inputs, 2, nullOutput, 3),
            MXRT_INVALID_ARGUMENT);
  EXPECT_THAT(mxrt_last_error(), HasSubstr("output 'grad_b'"));
  EXPECT_EQ(mxrt_instance_call(instance.get(), 1, nullptr, 2, outputs, 3),
            MXRT_INVALID_ARGUMENT);
  EXPECT_STREQ(mxrt_last_error(), "mxrt_instance_call: inputs is NULL");
  EXPECT_EQ(mxrt_instance_call(nullptr, 1, inputs, 2, outputs, 3),
            MXRT_INVALID_ARGUMENT);
  EXPECT_STREQ(mxrt_last_error(), "mxrt_instance_call: instance is NULL");

  // run and run_raw keep calling function 0 with run's messages.
  EXPECT_EQ(mxrt_instance_run(instance.get(), inputs, 2, outputs, 3),
            MXRT_INVALID_ARGUMENT);
  EXPECT_STREQ(mxrt_last_error(), "model 'linear' takes 1 inputs, got 2");
  float y[2] = {};
  const void *rawInputs[] = {mxrt_tensor_data(batch.x.get())};
  void *rawOutputs[] = {y};
  ASSERT_EQ(mxrt_instance_run_raw(instance.get(), rawInputs, rawOutputs),
            MXRT_OK);
  EXPECT_THAT(y, ElementsAre(7.5f, 5.5f));
}

TEST(Training, GetAndSetParam) {
  mxrt_model_desc desc = linear::desc();
  ModelPtr model = modelFrom(desc);
  InstancePtr instance = model ? newInstance(model.get()) : InstancePtr();
  ASSERT_TRUE(model && instance);

  TensorPtr w = floats({3}, {0.5f, -1, 0});
  ASSERT_EQ(mxrt_instance_set_param(instance.get(), 0, w.get()), MXRT_OK)
      << mxrt_last_error();
  EXPECT_THAT(param(instance.get(), 0, {3}), ElementsAre(0.5f, -1, 0));
  Batch batch;
  EXPECT_THAT(batch.forward(instance.get()), ElementsAre(1.0f, -0.5f));

  TensorPtr tooLong = floats({4}, {0, 0, 0, 0});
  EXPECT_EQ(mxrt_instance_set_param(instance.get(), 0, tooLong.get()),
            MXRT_INVALID_ARGUMENT);
  EXPECT_STREQ(mxrt_last_error(),
               "parameter 'w': expected shape 3 float32, got 4 float32");
  EXPECT_EQ(mxrt_instance_get_param(instance.get(), 1, tooLong.get()),
            MXRT_INVALID_ARGUMENT);
  EXPECT_STREQ(mxrt_last_error(),
               "parameter 'b': expected shape 1 float32, got 4 float32");
  mxrt_tensor *doubles = nullptr;
  const int64_t shape3[] = {3};
  ASSERT_EQ(mxrt_tensor_create(MXRT_F64, 1, shape3, &doubles), MXRT_OK);
  TensorPtr ownedDoubles(doubles);
  EXPECT_EQ(mxrt_instance_set_param(instance.get(), 0, doubles),
            MXRT_INVALID_ARGUMENT);
  EXPECT_THAT(mxrt_last_error(), HasSubstr("got 3 float64"));
  EXPECT_EQ(mxrt_instance_set_param(instance.get(), 3, w.get()),
            MXRT_NOT_FOUND);
  EXPECT_THAT(mxrt_last_error(),
              HasSubstr("parameter index 3 is out of range (model 'linear' "
                        "has 3 parameters)"));
  EXPECT_EQ(mxrt_instance_get_param(instance.get(), -1, w.get()),
            MXRT_NOT_FOUND);
  EXPECT_EQ(mxrt_instance_get_param(instance.get(), 0, nullptr),
            MXRT_INVALID_ARGUMENT);
  EXPECT_EQ(mxrt_instance_set_param(instance.get(), 0, nullptr),
            MXRT_INVALID_ARGUMENT);
  EXPECT_EQ(mxrt_instance_get_param(nullptr, 0, w.get()),
            MXRT_INVALID_ARGUMENT);
  // Nothing above changed the parameter.
  EXPECT_THAT(param(instance.get(), 0, {3}), ElementsAre(0.5f, -1, 0));

  // A view writes the parameter itself: the next call reads the change.
  mxrt_tensor *view = nullptr;
  ASSERT_EQ(mxrt_instance_param_view(instance.get(), 0, &view), MXRT_OK)
      << mxrt_last_error();
  TensorPtr ownedView(view);
  EXPECT_EQ(mxrt_tensor_num_elements(view), 3);
  EXPECT_THAT(valuesOf(view), ElementsAre(0.5f, -1, 0));
  static_cast<float *>(mxrt_tensor_data(view))[1] = 2.0f;
  EXPECT_THAT(param(instance.get(), 0, {3}), ElementsAre(0.5f, 2, 0));
  EXPECT_EQ(mxrt_instance_param_view(instance.get(), 3, &view), MXRT_NOT_FOUND);
  EXPECT_EQ(mxrt_instance_param_view(instance.get(), 0, nullptr),
            MXRT_INVALID_ARGUMENT);
}

TEST(Training, InferenceInstancesReadWeightsInPlace) {
  // The affine model of ModelTest, opened by path: an inference library.
  mxrt_model *raw = nullptr;
  ASSERT_EQ(mxrt_model_open(MXRT_TEST_MODEL_PATH, &raw), MXRT_OK)
      << mxrt_last_error();
  ModelPtr model(raw);
  InstancePtr instance = newInstance(model.get());
  ASSERT_TRUE(instance);
  EXPECT_EQ(mxrt_model_num_functions(model.get()), 1);
  int32_t function = -1;
  EXPECT_EQ(mxrt_model_find_function(model.get(), "train_step", &function),
            MXRT_NOT_FOUND);
  EXPECT_THAT(mxrt_last_error(), HasSubstr("mxc --train"));

  TensorPtr b = floats({3}, {0, 0, 0});
  ASSERT_EQ(mxrt_instance_get_param(instance.get(), 1, b.get()), MXRT_OK)
      << mxrt_last_error();
  EXPECT_THAT(valuesOf(b.get()), ElementsAre(1, 2, 3));
  EXPECT_EQ(mxrt_instance_set_param(instance.get(), 1, b.get()),
            MXRT_UNSUPPORTED);
  mxrt_tensor *view = nullptr;
  EXPECT_EQ(mxrt_instance_param_view(instance.get(), 1, &view),
            MXRT_UNSUPPORTED);
  EXPECT_EQ(view, nullptr);
  EXPECT_THAT(mxrt_last_error(),
              AllOf(HasSubstr("'affine' is an inference model"),
                    HasSubstr("mxc --train")));

  TempDir dir;
  std::string path = dir.file("affine.params");
  // Saving is fine (the weights are the parameters); loading is not.
  ASSERT_EQ(mxrt_instance_save_params(instance.get(), path.c_str()), MXRT_OK)
      << mxrt_last_error();
  EXPECT_EQ(mxrt_instance_load_params(instance.get(), path.c_str()),
            MXRT_UNSUPPORTED);
  EXPECT_THAT(mxrt_last_error(), HasSubstr("inference model"));
}

TEST(Training, DescriptorChecksV2Fields) {
  mxrt_model_desc desc = linear::desc();
  desc.flags = 0;
  expectRefused(desc, "function 'train_step' updates parameters or states, "
                      "but the model is not trainable");

  desc = linear::desc();
  desc.flags = MXRT_MODEL_TRAINABLE | 8;
  expectRefused(desc, "unknown model flags 0x9");

  desc = linear::desc();
  mxrt_function_desc functions[4];
  std::copy(std::begin(linear::functions), std::end(linear::functions),
            functions);
  desc.functions = functions;
  functions[1].flags = 4;
  expectRefused(desc, "function 'grad' has unknown flags 0x4");
  functions[1] = linear::functions[1];
  functions[3].name = "grad";
  expectRefused(desc, "two functions are named 'grad'");

  desc = linear::desc();
  mxrt_tensor_desc params[3];
  std::copy(std::begin(linear::params), std::end(linear::params), params);
  desc.params = params;
  params[2].name = "w";
  expectRefused(desc, "two parameters are named 'w'");
  params[2] = linear::params[2];
  params[0].flags = 16;
  expectRefused(desc, "parameter 'w' has flags 0x10");

  desc = linear::desc();
  mxrt_tensor_desc input = linear::forwardInputs[0];
  input.flags = MXRT_TENSOR_TRAINABLE;
  functions[0] = linear::functions[0];
  functions[0].inputs = &input;
  std::copy(std::begin(linear::functions) + 1, std::end(linear::functions),
            functions + 1);
  desc.functions = functions;
  expectRefused(desc, "input 'x' has flags 0x2, but only 0xc are allowed");
  // A length input is an int64 scalar of a function with shapes.
  input.flags = MXRT_TENSOR_LENGTH;
  expectRefused(desc, "length input 'x' is not an int64 scalar");
  input.flags = 0;
  input.offset = 8;
  expectRefused(desc, "input 'x' has offset 8");

  desc = linear::desc();
  mxrt_tensor_desc states[2] = {linear::states[0], linear::states[1]};
  desc.states = states;
  states[1].offset = 64;
  expectRefused(desc, "state 'momentum_b' has offset 64");
  states[1] = linear::states[1];
  states[0].size_bytes = 4;
  expectRefused(desc, "state 'momentum_w' claims 4 bytes");

  desc = linear::desc();
  desc.states = nullptr;
  expectRefused(desc, "invalid state table");
  desc.num_states = -1;
  expectRefused(desc, "num_states = -1");

  // States belong to training models only.
  desc = linear::desc();
  desc.flags = 0;
  desc.num_functions = 2; // forward and grad: no state updates
  expectRefused(desc, "2 optimizer states, but the model is not trainable");
  desc.num_states = 0;
  mxrt_model *model = nullptr;
  EXPECT_EQ(mxrt_model_from_descriptor(&desc, &model), MXRT_OK)
      << mxrt_last_error();
  mxrt_model_release(model);
}

//===------------------------------------------------------------------===//
// MXNet .params files
//===------------------------------------------------------------------===//

/// Builds .params bytes by hand, field by field, as the format describes.
struct ParamsBytes {
  std::string bytes;

  template <typename T> ParamsBytes &put(T value) {
    bytes.append(reinterpret_cast<const char *>(&value), sizeof(T));
    return *this;
  }
  ParamsBytes &header(uint64_t count) {
    return put<uint64_t>(0x112).put<uint64_t>(0).put<uint64_t>(count);
  }
  /// A dense CPU record (V2, or V3 with `magic`) of raw element bytes.
  ParamsBytes &record(int32_t dtype, std::vector<int64_t> shape,
                      const void *data, size_t size,
                      uint32_t magic = 0xF993FAC9) {
    put<uint32_t>(magic).put<int32_t>(0).put<int32_t>(int32_t(shape.size()));
    for (int64_t dim : shape)
      put<int64_t>(dim);
    put<int32_t>(1).put<int32_t>(0).put<int32_t>(dtype);
    bytes.append(static_cast<const char *>(data), size);
    return *this;
  }
  ParamsBytes &f32(std::vector<int64_t> shape, std::vector<float> values) {
    return record(MXRT_F32, shape, values.data(), values.size() * 4);
  }
  ParamsBytes &names(std::initializer_list<std::string> list) {
    put<uint64_t>(list.size());
    for (const std::string &name : list)
      put<uint64_t>(name.size()).bytes += name;
    return *this;
  }
  /// The linear model's three parameters, as mxrt saves them.
  static ParamsBytes linear(std::vector<float> w, float b,
                            std::vector<float> runningMean) {
    ParamsBytes file;
    file.header(3).f32({3}, w).f32({1}, {b}).f32({3}, runningMean);
    file.names({"arg:w", "arg:b", "aux:running_mean"});
    return file;
  }
};

/// A linear model and one instance of it, for the .params tests.
class Params : public ::testing::Test {
protected:
  void SetUp() override { ASSERT_TRUE(model && instance); }

  mxrt_model_desc desc = linear::desc();
  ModelPtr model = modelFrom(desc);
  InstancePtr instance = newInstance(model.get());
  TempDir dir;
};

TEST_F(Params, SaveWritesTheMXNetFormat) {
  std::string path = dir.file("linear.params");
  ASSERT_EQ(mxrt_instance_save_params(instance.get(), path.c_str()), MXRT_OK)
      << mxrt_last_error();
  ParamsBytes expected = ParamsBytes::linear({1, 2, 3}, 0.5f, {0, 0, 0});
  EXPECT_EQ(readFile(path), expected.bytes);
  // The temporary file is gone.
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path),
                          std::filesystem::directory_iterator()),
            1);

  // A 0-d parameter makes every record V3, as in MXNet's NumPy-shape mode.
  mxrt_model_desc halfDesc = halfscale::desc();
  ModelPtr halfModel = modelFrom(halfDesc);
  ASSERT_TRUE(halfModel);
  InstancePtr half = newInstance(halfModel.get());
  ASSERT_TRUE(half);
  std::string halfPath = dir.file("half.params");
  ASSERT_EQ(mxrt_instance_save_params(half.get(), halfPath.c_str()), MXRT_OK)
      << mxrt_last_error();
  uint16_t one = 0x3c00;
  ParamsBytes expectedHalf;
  expectedHalf.header(1)
      .record(MXRT_F16, {}, &one, 2, /*magic=*/0xF993FACA)
      .names({"arg:scale"});
  EXPECT_EQ(readFile(halfPath), expectedHalf.bytes);
}

TEST_F(Params, SaveThenLoadRoundTrips) {
  InstancePtr trained = newInstance(model.get());
  InstancePtr restored = newInstance(model.get());
  ASSERT_TRUE(trained && restored);
  Batch batch;
  for (int step = 0; step < 3; ++step)
    ASSERT_EQ(batch.trainStep(trained.get(), model.get()), MXRT_OK);
  std::string path = dir.file("linear.params");
  ASSERT_EQ(mxrt_instance_save_params(trained.get(), path.c_str()), MXRT_OK)
      << mxrt_last_error();
  ASSERT_EQ(mxrt_instance_load_params(restored.get(), path.c_str()), MXRT_OK)
      << mxrt_last_error();
  for (int32_t i = 0; i < 3; ++i) {
    std::vector<int64_t> shape = {i == 1 ? 1 : 3};
    EXPECT_EQ(param(restored.get(), i, shape), param(trained.get(), i, shape))
        << "parameter " << i;
  }
  EXPECT_EQ(batch.forward(restored.get()), batch.forward(trained.get()));
  // Parameters only: optimizer states are not in the file.
  EXPECT_THAT(momenta(restored.get()), ElementsAre(0, 0, 0, 0));

  // Saving again over the file replaces it.
  ASSERT_EQ(mxrt_instance_save_params(restored.get(), path.c_str()), MXRT_OK);
  InstancePtr again = newInstance(model.get());
  ASSERT_EQ(mxrt_instance_load_params(again.get(), path.c_str()), MXRT_OK);
  EXPECT_EQ(param(again.get(), 0, {3}), param(trained.get(), 0, {3}));
}

TEST_F(Params, LoadMatchesNamesAndConvertsFloats) {
  // Names without prefixes or with the other prefix, in another order, an
  // extra array the model ignores, float64 and float16 data.
  const double w[] = {0.25, -2, 1e-3};
  const uint16_t mean[] = {0x3c00, 0xc000, 0x3800}; // 1, -2, 0.5
  ParamsBytes file;
  file.header(4)
      .record(MXRT_F16, {3}, mean, sizeof(mean))
      .f32({2}, {9, 9})
      .record(MXRT_F64, {3}, w, sizeof(w))
      .f32({1}, {-0.5f})
      .names({"arg:running_mean", "arg:unused", "w", "arg:b"});
  std::string path = dir.file("mixed.params");
  writeFile(path, file.bytes);
  ASSERT_EQ(mxrt_instance_load_params(instance.get(), path.c_str()), MXRT_OK)
      << mxrt_last_error();
  EXPECT_THAT(param(instance.get(), 0, {3}), ElementsAre(0.25f, -2, 1e-3f));
  EXPECT_THAT(param(instance.get(), 1, {1}), ElementsAre(-0.5f));
  EXPECT_THAT(param(instance.get(), 2, {3}), ElementsAre(1, -2, 0.5f));

  // Older record layouts: V1 (no storage type) and legacy (the magic is the
  // ndim, then uint32 dimensions).
  const float w1[] = {3, 2, 1};
  const float b1[] = {9};
  ParamsBytes old;
  old.header(3)
      .put<uint32_t>(0xF993FAC8)
      .put<int32_t>(1)
      .put<int64_t>(3)
      .put<int32_t>(1)
      .put<int32_t>(0)
      .put<int32_t>(MXRT_F32);
  old.bytes.append(reinterpret_cast<const char *>(w1), sizeof(w1));
  old.put<uint32_t>(1)
      .put<uint32_t>(1)
      .put<int32_t>(1)
      .put<int32_t>(0)
      .put<int32_t>(MXRT_F32);
  old.bytes.append(reinterpret_cast<const char *>(b1), sizeof(b1));
  old.f32({3}, {4, 4, 4}).names({"arg:w", "arg:b", "aux:running_mean"});
  writeFile(path, old.bytes);
  ASSERT_EQ(mxrt_instance_load_params(instance.get(), path.c_str()), MXRT_OK)
      << mxrt_last_error();
  EXPECT_THAT(param(instance.get(), 0, {3}), ElementsAre(3, 2, 1));
  EXPECT_THAT(param(instance.get(), 1, {1}), ElementsAre(9));
  EXPECT_THAT(param(instance.get(), 2, {3}), ElementsAre(4, 4, 4));

  // float32 and float64 into a float16 parameter, rounded to nearest even.
  mxrt_model_desc halfDesc = halfscale::desc();
  ModelPtr halfModel = modelFrom(halfDesc);
  ASSERT_TRUE(halfModel);
  InstancePtr half = newInstance(halfModel.get());
  ASSERT_TRUE(half);
  struct Case {
    float value;
    uint16_t bits;
  };
  for (Case c :
       {Case{65504.0f, 0x7bff}, Case{1e6f, 0x7c00}, Case{-2.0f, 0xc000},
        Case{0.0f, 0x0000}, Case{1.0f + 1.0f / 2048, 0x3c00}, // tie, to even
        Case{1.0f + 3.0f / 2048, 0x3c02},                     // tie, to even
        Case{5.960464477539063e-08f, 0x0001}, // 2^-24, subnormal
        Case{1.5f, 0x3e00}}) {
    ParamsBytes scalar;
    scalar.header(1)
        .record(MXRT_F32, {}, &c.value, 4, /*magic=*/0xF993FACA)
        .names({"scale"});
    writeFile(path, scalar.bytes);
    ASSERT_EQ(mxrt_instance_load_params(half.get(), path.c_str()), MXRT_OK)
        << mxrt_last_error();
    mxrt_tensor *raw = nullptr;
    ASSERT_EQ(mxrt_tensor_create(MXRT_F16, 0, nullptr, &raw), MXRT_OK);
    TensorPtr tensor(raw);
    ASSERT_EQ(mxrt_instance_get_param(half.get(), 0, raw), MXRT_OK);
    EXPECT_EQ(*static_cast<uint16_t *>(mxrt_tensor_data(raw)), c.bits)
        << c.value;
  }
  TensorPtr x = floats({2}, {2, -4});
  TensorPtr y = floats({2}, {0, 0});
  mxrt_tensor *inputs[] = {x.get()};
  mxrt_tensor *outputs[] = {y.get()};
  ASSERT_EQ(mxrt_instance_run(half.get(), inputs, 1, outputs, 1), MXRT_OK);
  EXPECT_THAT(valuesOf(y.get()), ElementsAre(3, -6)); // scale is 1.5 now
}

TEST_F(Params, LoadErrorsNameTheFileAndParameter) {
  std::string path = dir.file("bad.params");
  // Every failed load below leaves the parameters as they were.
  auto expectUnchanged = [&] {
    EXPECT_THAT(param(instance.get(), 0, {3}), ElementsAre(1, 2, 3));
    EXPECT_THAT(param(instance.get(), 1, {1}), ElementsAre(0.5f));
  };
  auto load = [&](const ParamsBytes &file) {
    writeFile(path, file.bytes);
    return mxrt_instance_load_params(instance.get(), path.c_str());
  };

  ParamsBytes missing;
  missing.header(1).f32({3}, {7, 7, 7}).names({"arg:w"});
  EXPECT_EQ(load(missing), MXRT_NOT_FOUND);
  EXPECT_STREQ(mxrt_last_error(),
               ("'" + path +
                "': parameter 'arg:b' of model 'linear' is missing (and 1 "
                "more)")
                   .c_str());
  expectUnchanged();

  ParamsBytes wrongShape;
  wrongShape.header(3)
      .f32({3}, {7, 7, 7})
      .f32({1}, {7})
      .f32({1, 3}, {7, 7, 7})
      .names({"arg:w", "arg:b", "aux:running_mean"});
  EXPECT_EQ(load(wrongShape), MXRT_INVALID_ARGUMENT);
  EXPECT_STREQ(
      mxrt_last_error(),
      ("'" + path + "': parameter 'running_mean': expected shape 3, got 1x3")
          .c_str());
  expectUnchanged();

  const int32_t ints[] = {1, 2, 3};
  ParamsBytes wrongType;
  wrongType.header(3)
      .record(MXRT_I32, {3}, ints, sizeof(ints))
      .f32({1}, {7})
      .f32({3}, {7, 7, 7})
      .names({"arg:w", "arg:b", "aux:running_mean"});
  EXPECT_EQ(load(wrongType), MXRT_INVALID_ARGUMENT);
  EXPECT_THAT(mxrt_last_error(),
              AllOf(HasSubstr(path), HasSubstr("parameter 'w'"),
                    HasSubstr("cannot convert int32 data to float32")));
  expectUnchanged();

  ParamsBytes none;
  none.header(3)
      .put<uint32_t>(0xF993FAC9)
      .put<int32_t>(0)
      .put<int32_t>(0) // ndim 0 in V2: MXNet's empty NDArray()
      .f32({1}, {7})
      .f32({3}, {7, 7, 7})
      .names({"arg:w", "arg:b", "aux:running_mean"});
  EXPECT_EQ(load(none), MXRT_INVALID_ARGUMENT);
  EXPECT_THAT(mxrt_last_error(), HasSubstr("parameter 'w': the file holds an "
                                           "empty (none) array"));

  // Every proper prefix of a good file is a truncated file.
  ParamsBytes good = ParamsBytes::linear({7, 7, 7}, 7, {7, 7, 7});
  for (size_t size = 0; size < good.bytes.size(); ++size) {
    writeFile(path, good.bytes.substr(0, size));
    ASSERT_EQ(mxrt_instance_load_params(instance.get(), path.c_str()),
              MXRT_IO_ERROR)
        << size;
    ASSERT_THAT(mxrt_last_error(), HasSubstr(path)) << size;
    if (size >= 8)
      ASSERT_THAT(mxrt_last_error(), HasSubstr("truncated")) << size;
  }
  expectUnchanged();
  writeFile(path, good.bytes.substr(0, 24 + 4 + 4 + 4 + 8 + 12 + 5));
  EXPECT_EQ(mxrt_instance_load_params(instance.get(), path.c_str()),
            MXRT_IO_ERROR);
  EXPECT_STREQ(mxrt_last_error(),
               ("'" + path +
                "': truncated file: record 0: reading the float32 data needs "
                "12 bytes at offset 56, but only 5 are left")
                   .c_str());

  writeFile(path, std::string("\x93NUMPY\x01\x00 not params", 19));
  EXPECT_EQ(mxrt_instance_load_params(instance.get(), path.c_str()),
            MXRT_IO_ERROR);
  EXPECT_THAT(mxrt_last_error(),
              AllOf(HasSubstr(path), HasSubstr("not an MXNet .params file")));

  std::string absent = dir.file("absent.params");
  EXPECT_EQ(mxrt_instance_load_params(instance.get(), absent.c_str()),
            MXRT_NOT_FOUND);
  EXPECT_THAT(mxrt_last_error(), HasSubstr(absent));
  EXPECT_EQ(mxrt_instance_load_params(instance.get(), dir.path.c_str()),
            MXRT_IO_ERROR);
  EXPECT_EQ(mxrt_instance_load_params(instance.get(), nullptr),
            MXRT_INVALID_ARGUMENT);
  EXPECT_EQ(mxrt_instance_load_params(nullptr, path.c_str()),
            MXRT_INVALID_ARGUMENT);
  expectUnchanged();
}

TEST_F(Params, FailedSaveLeavesNoFile) {
  std::string path = dir.file("missing-dir/linear.params");
  EXPECT_EQ(mxrt_instance_save_params(instance.get(), path.c_str()),
            MXRT_IO_ERROR);
  EXPECT_THAT(mxrt_last_error(), HasSubstr(path));
  EXPECT_TRUE(std::filesystem::is_empty(dir.path));
  EXPECT_EQ(mxrt_instance_save_params(instance.get(), nullptr),
            MXRT_INVALID_ARGUMENT);
  EXPECT_EQ(mxrt_instance_save_params(nullptr, path.c_str()),
            MXRT_INVALID_ARGUMENT);
}

} // namespace
