// SPDX-License-Identifier: Apache-2.0
//
// Models and instances, through dlopen of the hand-written libaffine model
// (test_model.c) and through descriptors built here: inspection, runs, every
// argument check of run, descriptor validation, concurrent instances, and
// dynamic dimensions (functions in batch variants).

#include "TestUtil.h"

#include "mxrt/model_abi.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <iterator>
#include <thread>
#include <vector>

#include <malloc.h>
#include <unistd.h>

using namespace mxrt_test;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::StrEq;

namespace {

ModelPtr openAffine() {
  mxrt_model *model = nullptr;
  EXPECT_EQ(mxrt_model_open(MXRT_TEST_MODEL_PATH, &model), MXRT_OK)
      << mxrt_last_error();
  return ModelPtr(model);
}

/// The inputs and outputs of libaffine: x (2x3 f32), scale (f32 scalar) ->
/// y (2x3 f32), total (f64 scalar).
struct AffineTensors {
  TensorPtr x = newTensor(MXRT_F32, {2, 3});
  TensorPtr scale = newTensor(MXRT_F32, {});
  TensorPtr y = newTensor(MXRT_F32, {2, 3});
  TensorPtr total = newTensor(MXRT_F64, {});

  void setInputs(float base, float scaleValue) {
    float *xData = static_cast<float *>(mxrt_tensor_data(x.get()));
    for (int i = 0; i < 6; ++i)
      xData[i] = base + static_cast<float>(i);
    *static_cast<float *>(mxrt_tensor_data(scale.get())) = scaleValue;
  }
  const float *yData() {
    return static_cast<float *>(mxrt_tensor_data(y.get()));
  }
  double totalValue() {
    return *static_cast<double *>(mxrt_tensor_data(total.get()));
  }
  mxrt_status run(mxrt_instance *instance) {
    mxrt_tensor *inputs[] = {x.get(), scale.get()};
    mxrt_tensor *outputs[] = {y.get(), total.get()};
    return mxrt_instance_run(instance, inputs, 2, outputs, 2);
  }
};

/// What libaffine computes: y = x * w * scale + b, total = sum(y).
void expectAffine(AffineTensors &t, float base, float scale) {
  const float w[] = {0.5f, 1.0f, 1.5f, 2.0f, 2.5f, 3.0f};
  const float b[] = {1.0f, 2.0f, 3.0f};
  double total = 0;
  for (int i = 0; i < 6; ++i) {
    float expected = (base + static_cast<float>(i)) * w[i] * scale + b[i % 3];
    ASSERT_EQ(t.yData()[i], expected) << "y[" << i << "]";
    total += expected;
  }
  EXPECT_DOUBLE_EQ(t.totalValue(), total);
}

TEST(Model, OpenReportsInputsAndOutputs) {
  ModelPtr model = openAffine();
  ASSERT_TRUE(model);
  EXPECT_STREQ(mxrt_model_name(model.get()), "affine");
  ASSERT_EQ(mxrt_model_num_inputs(model.get()), 2);
  ASSERT_EQ(mxrt_model_num_outputs(model.get()), 2);

  mxrt_tensor_info info;
  ASSERT_EQ(mxrt_model_input_info(model.get(), 0, &info), MXRT_OK);
  EXPECT_STREQ(info.name, "x");
  EXPECT_EQ(info.dtype, MXRT_F32);
  ASSERT_EQ(info.ndim, 2);
  EXPECT_EQ(info.shape[0], 2);
  EXPECT_EQ(info.shape[1], 3);
  ASSERT_EQ(mxrt_model_input_info(model.get(), 1, &info), MXRT_OK);
  EXPECT_STREQ(info.name, "scale");
  EXPECT_EQ(info.ndim, 0);
  ASSERT_EQ(mxrt_model_output_info(model.get(), 1, &info), MXRT_OK);
  EXPECT_STREQ(info.name, "total");
  EXPECT_EQ(info.dtype, MXRT_F64);

  EXPECT_EQ(mxrt_model_input_info(model.get(), 2, &info), MXRT_NOT_FOUND);
  EXPECT_EQ(mxrt_model_output_info(model.get(), -1, &info), MXRT_NOT_FOUND);
  EXPECT_EQ(mxrt_model_input_info(model.get(), 0, nullptr),
            MXRT_INVALID_ARGUMENT);

  expectFinds(mxrt_model_find_input, model.get(), "scale", 1, "weights",
              "'weights'");
}

TEST(Model, RunComputesOutputs) {
  ModelPtr model = openAffine();
  InstancePtr instance = model ? newInstance(model.get()) : InstancePtr();
  ASSERT_TRUE(model && instance);
  AffineTensors t;
  t.setInputs(1.0f, 2.0f);
  ASSERT_EQ(t.run(instance.get()), MXRT_OK) << mxrt_last_error();
  expectAffine(t, 1.0f, 2.0f);
  // A second run on the same instance reuses its buffers.
  t.setInputs(-3.0f, 0.5f);
  ASSERT_EQ(t.run(instance.get()), MXRT_OK) << mxrt_last_error();
  expectAffine(t, -3.0f, 0.5f);
}

TEST(Model, RunRawTakesPlainBuffers) {
  ModelPtr model = openAffine();
  InstancePtr instance = model ? newInstance(model.get()) : InstancePtr();
  ASSERT_TRUE(model && instance);
  AffineTensors t;
  t.setInputs(2.0f, -1.0f);
  const void *inputs[] = {mxrt_tensor_data(t.x.get()),
                          mxrt_tensor_data(t.scale.get())};
  void *outputs[] = {mxrt_tensor_data(t.y.get()),
                     mxrt_tensor_data(t.total.get())};
  ASSERT_EQ(mxrt_instance_run_raw(instance.get(), inputs, outputs), MXRT_OK);
  expectAffine(t, 2.0f, -1.0f);

  const void *missing[] = {inputs[0], nullptr};
  EXPECT_EQ(mxrt_instance_run_raw(instance.get(), missing, outputs),
            MXRT_INVALID_ARGUMENT);
  EXPECT_THAT(mxrt_last_error(), HasSubstr("input 'scale'"));
  void *noOutput[] = {nullptr, outputs[1]};
  EXPECT_EQ(mxrt_instance_run_raw(instance.get(), inputs, noOutput),
            MXRT_INVALID_ARGUMENT);
  EXPECT_THAT(mxrt_last_error(), HasSubstr("output 'y'"));
  EXPECT_EQ(mxrt_instance_run_raw(instance.get(), nullptr, outputs),
            MXRT_INVALID_ARGUMENT);
  EXPECT_EQ(mxrt_instance_run_raw(nullptr, inputs, outputs),
            MXRT_INVALID_ARGUMENT);
}

TEST(Model, RunChecksEveryTensor) {
  ModelPtr model = openAffine();
  InstancePtr instance = model ? newInstance(model.get()) : InstancePtr();
  ASSERT_TRUE(model && instance);
  AffineTensors t;
  mxrt_tensor *inputs[] = {t.x.get(), t.scale.get()};
  mxrt_tensor *outputs[] = {t.y.get(), t.total.get()};
  // Expects the run of `in` and `out` (counts 2 unless given) refused with
  // INVALID_ARGUMENT and a message `message` matches.
  auto expectRefused = [&](mxrt_tensor *const *in, mxrt_tensor *const *out,
                           ::testing::Matcher<std::string> message,
                           int32_t numIn = 2, int32_t numOut = 2) {
    EXPECT_EQ(mxrt_instance_run(instance.get(), in, numIn, out, numOut),
              MXRT_INVALID_ARGUMENT);
    EXPECT_THAT(std::string(mxrt_last_error()), message);
  };

  TensorPtr wrongShape = newTensor(MXRT_F32, {2, 4});
  mxrt_tensor *badShape[] = {wrongShape.get(), t.scale.get()};
  expectRefused(
      badShape, outputs,
      StrEq("input 'x': expected shape 2x3 float32, got 2x4 float32"));
  TensorPtr wrongDtype = newTensor(MXRT_F64, {2, 3});
  mxrt_tensor *badDtype[] = {wrongDtype.get(), t.scale.get()};
  expectRefused(
      badDtype, outputs,
      StrEq("input 'x': expected shape 2x3 float32, got 2x3 float64"));
  TensorPtr notScalar = newTensor(MXRT_F32, {1});
  mxrt_tensor *badRank[] = {t.x.get(), notScalar.get()};
  expectRefused(
      badRank, outputs,
      StrEq("input 'scale': expected shape scalar float32, got 1 float32"));
  mxrt_tensor *nullInput[] = {t.x.get(), nullptr};
  expectRefused(nullInput, outputs, HasSubstr("input 'scale'"));
  expectRefused(inputs, outputs, HasSubstr("takes 2 inputs, got 1"), 1, 2);
  expectRefused(inputs, outputs, HasSubstr("produces 2 outputs, got 3"), 2, 3);
  mxrt_tensor *badOutput[] = {t.y.get(), wrongDtype.get()};
  expectRefused(inputs, badOutput,
                StrEq("output 'total': expected shape scalar float64, got "
                      "2x3 float64"));
  expectRefused(nullptr, outputs, HasSubstr("inputs is NULL"));
  EXPECT_EQ(mxrt_instance_run(nullptr, inputs, 2, outputs, 2),
            MXRT_INVALID_ARGUMENT);
  EXPECT_THAT(mxrt_last_error(), HasSubstr("instance is NULL"));

  // Nothing above ran the model: outputs are still zero.
  EXPECT_EQ(t.totalValue(), 0.0);
}

TEST(Model, OpenReportsBadLibraries) {
  mxrt_model *sentinel = reinterpret_cast<mxrt_model *>(0x1);
  mxrt_model *model = sentinel;

  EXPECT_EQ(mxrt_model_open("/nonexistent/libnet.so", &model), MXRT_NOT_FOUND);
  EXPECT_THAT(mxrt_last_error(), HasSubstr("/nonexistent/libnet.so"));

  TempDir dir;
  std::string text = dir.file("libtext.so");
  writeFile(text, "not an ELF file");
  EXPECT_EQ(mxrt_model_open(text.c_str(), &model), MXRT_IO_ERROR);
  EXPECT_THAT(mxrt_last_error(), HasSubstr(text));

  EXPECT_EQ(mxrt_model_open(MXRT_TEST_NOT_A_MODEL_PATH, &model),
            MXRT_NOT_FOUND);
  EXPECT_THAT(mxrt_last_error(), AllOf(HasSubstr(MXRT_TEST_NOT_A_MODEL_PATH),
                                       HasSubstr("mxc_model_descriptor")));

  EXPECT_EQ(mxrt_model_open(MXRT_TEST_BAD_ABI_MODEL_PATH, &model),
            MXRT_UNSUPPORTED);
  EXPECT_THAT(
      mxrt_last_error(),
      AllOf(HasSubstr(MXRT_TEST_BAD_ABI_MODEL_PATH),
            HasSubstr("ABI version 999"),
            HasSubstr("version " + std::to_string(MXRT_MODEL_ABI_VERSION)),
            HasSubstr("recompile it with this mxc")));

  EXPECT_EQ(mxrt_model_open(nullptr, &model), MXRT_INVALID_ARGUMENT);
  EXPECT_EQ(mxrt_model_open(MXRT_TEST_MODEL_PATH, nullptr),
            MXRT_INVALID_ARGUMENT);
  EXPECT_EQ(model, sentinel);
  mxrt_model_release(nullptr);
  mxrt_instance_release(nullptr);
}

TEST(Model, OpenTwiceGivesIndependentHandles) {
  ModelPtr first = openAffine();
  ModelPtr second = openAffine();
  ASSERT_TRUE(first && second);
  first.reset();
  InstancePtr instance = newInstance(second.get());
  ASSERT_TRUE(instance);
  AffineTensors t;
  t.setInputs(0.0f, 1.0f);
  ASSERT_EQ(t.run(instance.get()), MXRT_OK);
  expectAffine(t, 0.0f, 1.0f);
}

TEST(Instance, Options) {
  ModelPtr model = openAffine();
  ASSERT_TRUE(model);
  mxrt_instance_options options;
  mxrt_instance_options_init(&options);
  EXPECT_EQ(options.struct_size, sizeof(options));
  EXPECT_EQ(options.num_threads, 0);

  mxrt_instance *instance = nullptr;
  options.num_threads = 4;
  ASSERT_EQ(mxrt_instance_create(model.get(), &options, &instance), MXRT_OK);
  mxrt_instance_release(instance);

  options.num_threads = -2;
  EXPECT_EQ(mxrt_instance_create(model.get(), &options, &instance),
            MXRT_INVALID_ARGUMENT);
  EXPECT_THAT(mxrt_last_error(), HasSubstr("num_threads is -2"));

  mxrt_instance_options zeroed = {};
  EXPECT_EQ(mxrt_instance_create(model.get(), &zeroed, &instance),
            MXRT_INVALID_ARGUMENT);
  EXPECT_THAT(mxrt_last_error(), HasSubstr("struct_size"));

  // device_buffers is for CUDA models; an app built before the field
  // existed (a shorter struct_size) never sets it.
  options.num_threads = 1;
  options.device_buffers = 1;
  EXPECT_EQ(mxrt_instance_create(model.get(), &options, &instance),
            MXRT_INVALID_ARGUMENT);
  EXPECT_THAT(mxrt_last_error(),
              AllOf(HasSubstr("device_buffers is for CUDA models"),
                    HasSubstr("affine")));
  options.struct_size = offsetof(mxrt_instance_options, device_buffers);
  ASSERT_EQ(mxrt_instance_create(model.get(), &options, &instance), MXRT_OK);
  mxrt_instance_release(instance);

  EXPECT_EQ(mxrt_instance_create(nullptr, nullptr, &instance),
            MXRT_INVALID_ARGUMENT);
  EXPECT_EQ(mxrt_instance_create(model.get(), nullptr, nullptr),
            MXRT_INVALID_ARGUMENT);
}

TEST(Instance, ConcurrentRunsOnSeparateInstances) {
  ModelPtr model = openAffine();
  ASSERT_TRUE(model);
  constexpr int numThreads = 8, runsPerThread = 2000;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int thread = 0; thread < numThreads; ++thread) {
    threads.emplace_back([&, thread] {
      mxrt_instance *instance = nullptr;
      if (mxrt_instance_create(model.get(), nullptr, &instance) != MXRT_OK) {
        ++failures;
        return;
      }
      AffineTensors t;
      for (int run = 0; run < runsPerThread; ++run) {
        float base = static_cast<float>(thread * 1000 + run % 97);
        float scale = static_cast<float>(thread + 1);
        t.setInputs(base, scale);
        if (t.run(instance) != MXRT_OK) {
          ++failures;
          break;
        }
        double expected = 0;
        const float w[] = {0.5f, 1.0f, 1.5f, 2.0f, 2.5f, 3.0f};
        for (int i = 0; i < 6; ++i)
          expected +=
              (base + static_cast<float>(i)) * w[i] * scale + (i % 3 + 1.0f);
        if (t.totalValue() != expected) {
          ++failures;
          break;
        }
      }
      mxrt_instance_release(instance);
    });
  }
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(failures.load(), 0);
}

// A model linked into the test itself: y = x + 1 over four floats, with no
// parameters or scratch.
void addOne(void *const *buffers, mxrt_exec_context *ctx) {
  const float *x = static_cast<const float *>(buffers[0]);
  float *y = static_cast<float *>(buffers[1]);
  for (int i = 0; i < 4; ++i)
    y[i] = x[i] + 1.0f;
  if (ctx->scratch)
    y[0] = NAN; // No scratch was asked for.
}

const int64_t shape4[] = {4};
const mxrt_tensor_desc addOneInputs[] = {{"in", MXRT_F32, 1, shape4, 0, 16, 0}};
const mxrt_tensor_desc addOneOutputs[] = {
    {"out", MXRT_F32, 1, shape4, 0, 16, 0}};
const mxrt_function_desc addOneFunctions[] = {
    {"forward", 1, addOneInputs, 1, addOneOutputs, addOne, 0, 0}};
alignas(64) const uint8_t addOneWeights[128] = {};
const mxrt_tensor_desc addOneParams[] = {{"p", MXRT_F32, 1, shape4, 64, 16, 0}};

mxrt_model_desc addOneDesc() {
  return {MXRT_MODEL_ABI_VERSION,
          "add_one",
          1,
          addOneFunctions,
          1,
          addOneParams,
          addOneWeights,
          sizeof(addOneWeights),
          /*num_states=*/0,
          /*states=*/nullptr,
          /*flags=*/0,
          /*weights_file=*/nullptr,
          /*weights_hash=*/0};
}

TEST(Instance, CreateStaticOwnsItsModel) {
  static const mxrt_model_desc desc = addOneDesc();
  mxrt_instance *raw = nullptr;
  ASSERT_EQ(mxrt_instance_create_static(&desc, nullptr, &raw), MXRT_OK)
      << mxrt_last_error();
  InstancePtr instance(raw);
  alignas(64) float x[4] = {1, 2, 3, 4}, y[4] = {};
  const void *inputs[] = {x};
  void *outputs[] = {y};
  ASSERT_EQ(mxrt_instance_run_raw(raw, inputs, outputs), MXRT_OK);
  EXPECT_EQ(y[0], 2.0f);
  EXPECT_EQ(y[3], 5.0f);

  mxrt_model_desc bad = addOneDesc();
  bad.abi_version = 0;
  EXPECT_EQ(mxrt_instance_create_static(&bad, nullptr, &raw), MXRT_UNSUPPORTED);
  EXPECT_EQ(mxrt_instance_create_static(nullptr, nullptr, &raw),
            MXRT_INVALID_ARGUMENT);
}

// Outputs that share memory with an input or another output, and buffers
// not aligned to their elements, are refused before the model runs (run and
// run_raw alike); distinct buffers and inputs shared by several inputs are
// fine.
TEST(Model, RunRefusesAliasedAndMisalignedBuffers) {
  ModelPtr model = openAffine();
  InstancePtr instance = model ? newInstance(model.get()) : InstancePtr();
  ASSERT_TRUE(model && instance);
  alignas(64) float x[6] = {1, 2, 3, 4, 5, 6}, scale = 1, y[8] = {};
  alignas(8) double total[2] = {};
  auto runRaw = [&](const void *in0, const void *in1, void *out0, void *out1) {
    const void *inputs[] = {in0, in1};
    void *outputs[] = {out0, out1};
    return mxrt_instance_run_raw(instance.get(), inputs, outputs);
  };
  EXPECT_EQ(runRaw(x, &scale, y, total), MXRT_OK) << mxrt_last_error();
  EXPECT_EQ(runRaw(x, &x[0], y, total), MXRT_OK) << mxrt_last_error();

  EXPECT_EQ(runRaw(x, &scale, x, total), MXRT_INVALID_ARGUMENT);
  EXPECT_THAT(mxrt_last_error(),
              StrEq("model 'affine': output 'y' overlaps input 'x' (outputs "
                    "must not share memory with inputs or other outputs)"));
  // The last float of y is the scale.
  EXPECT_EQ(runRaw(x, &y[5], y, total), MXRT_INVALID_ARGUMENT);
  EXPECT_THAT(mxrt_last_error(),
              HasSubstr("output 'y' overlaps input 'scale'"));
  EXPECT_EQ(runRaw(x, &scale, y, &y[4]), MXRT_INVALID_ARGUMENT);
  EXPECT_THAT(mxrt_last_error(),
              HasSubstr("output 'total' overlaps output 'y'"));
  auto *odd = reinterpret_cast<double *>(reinterpret_cast<char *>(total) + 4);
  EXPECT_EQ(runRaw(x, &scale, y, odd), MXRT_INVALID_ARGUMENT);
  EXPECT_THAT(mxrt_last_error(), HasSubstr("output 'total' at 0x"));
  EXPECT_THAT(mxrt_last_error(),
              HasSubstr("is not aligned to its float64 elements"));
  auto *oddX = reinterpret_cast<float *>(reinterpret_cast<char *>(y) + 2);
  EXPECT_EQ(runRaw(oddX, &scale, x, total), MXRT_INVALID_ARGUMENT);
  EXPECT_THAT(mxrt_last_error(), HasSubstr("input 'x' at"));

  // The same through mxrt_instance_run: tensors wrapping shared memory.
  int64_t shape[] = {2, 3};
  mxrt_tensor *xT = nullptr, *sT = nullptr, *tT = nullptr;
  ASSERT_EQ(mxrt_tensor_wrap(MXRT_F32, 2, shape, x, &xT), MXRT_OK);
  ASSERT_EQ(mxrt_tensor_wrap(MXRT_F32, 0, nullptr, &scale, &sT), MXRT_OK);
  ASSERT_EQ(mxrt_tensor_wrap(MXRT_F64, 0, nullptr, total, &tT), MXRT_OK);
  TensorPtr xt(xT), st(sT), tt(tT);
  mxrt_tensor *inputs[] = {xT, sT};
  mxrt_tensor *inPlace[] = {xT, tT};
  EXPECT_EQ(mxrt_instance_run(instance.get(), inputs, 2, inPlace, 2),
            MXRT_INVALID_ARGUMENT);
  EXPECT_THAT(mxrt_last_error(), HasSubstr("output 'y' overlaps input 'x'"));
  EXPECT_EQ(x[0], 1.0f); // nothing ran
}

// One thread uses an instance at a time: a second thread's call while the
// first is inside the model fails with a message instead of sharing its
// buffers, and the instance works again afterwards.
std::atomic<int> blockingStage{0};
void blockingAddOne(void *const *buffers, mxrt_exec_context *) {
  int idle = 0;
  if (blockingStage.compare_exchange_strong(idle, 1))
    while (blockingStage.load() != 2)
      std::this_thread::yield();
  const float *x = static_cast<const float *>(buffers[0]);
  float *y = static_cast<float *>(buffers[1]);
  for (int i = 0; i < 4; ++i)
    y[i] = x[i] + 1.0f;
}

TEST(Instance, ASecondThreadsCallIsRefusedWhileOneRuns) {
  const int64_t shape[] = {4};
  static const mxrt_tensor_desc in[] = {{"in", MXRT_F32, 1, shape, 0, 16, 0}};
  static const mxrt_tensor_desc out[] = {{"out", MXRT_F32, 1, shape, 0, 16, 0}};
  static const mxrt_function_desc functions[] = {
      {"forward", 1, in, 1, out, blockingAddOne, 0, 0}};
  alignas(64) static const uint8_t weights[64] = {};
  static const mxrt_model_desc desc = {MXRT_MODEL_ABI_VERSION,
                                       "blocking",
                                       1,
                                       functions,
                                       0,
                                       nullptr,
                                       weights,
                                       sizeof(weights),
                                       0,
                                       nullptr,
                                       0,
                                       nullptr,
                                       0};
  mxrt_model *raw = nullptr;
  ASSERT_EQ(mxrt_model_from_descriptor(&desc, &raw), MXRT_OK)
      << mxrt_last_error();
  ModelPtr model(raw);
  InstancePtr instance = newInstance(model.get());
  ASSERT_TRUE(instance);
  alignas(64) float x[4] = {1, 2, 3, 4}, y[4] = {}, y2[4] = {};
  const void *inputs[] = {x};
  void *outputs[] = {y}, *outputs2[] = {y2};
  blockingStage = 0;
  mxrt_status first = MXRT_INTERNAL;
  std::string firstError;
  std::atomic<bool> firstDone{false};
  std::thread runner([&] {
    first = mxrt_instance_run_raw(instance.get(), inputs, outputs);
    if (first != MXRT_OK)
      firstError = mxrt_last_error();
    firstDone = true;
  });
  while (blockingStage.load() != 1 && !firstDone.load())
    std::this_thread::yield();
  if (firstDone.load()) {
    runner.join();
    FAIL() << "the first call did not reach the model: " << firstError;
  }
  EXPECT_EQ(mxrt_instance_run_raw(instance.get(), inputs, outputs2),
            MXRT_INVALID_ARGUMENT);
  EXPECT_THAT(mxrt_last_error(),
              StrEq("model 'blocking': the instance is in a call on another "
                    "thread (one thread uses an instance at a time: create an "
                    "instance per thread)"));
  blockingStage = 2;
  runner.join();
  EXPECT_EQ(first, MXRT_OK);
  EXPECT_EQ(y[3], 5.0f);
  EXPECT_EQ(y2[3], 0.0f);
  // Free again: this thread's call runs (the entry does not block now).
  EXPECT_EQ(mxrt_instance_run_raw(instance.get(), inputs, outputs2), MXRT_OK)
      << mxrt_last_error();
  EXPECT_EQ(y2[3], 5.0f);
}

TEST(Model, FromDescriptorValidatesTheTable) {
  mxrt_model *model = nullptr;
  mxrt_model_desc good = addOneDesc();
  ASSERT_EQ(mxrt_model_from_descriptor(&good, &model), MXRT_OK)
      << mxrt_last_error();
  EXPECT_STREQ(mxrt_model_name(model), "add_one");
  mxrt_model_release(model);
  model = nullptr;

  mxrt_model_desc desc = addOneDesc();
  desc.num_functions = 0;
  expectRefused(desc, "no functions");
  desc = addOneDesc();
  desc.functions = nullptr;
  expectRefused(desc, "no functions");
  desc = addOneDesc();
  desc.params = nullptr;
  expectRefused(desc, "parameter");
  // Weights both embedded and in a file, or in a file that is not a plain
  // name beside the library.
  desc = addOneDesc();
  desc.weights_file = "add_one.weights";
  expectRefused(desc, "invalid parameter or weight tables");
  desc.weights = nullptr;
  for (const char *name : {"../add_one.weights", "/tmp/w", "..", ""}) {
    desc.weights_file = name;
    expectRefused(desc, "is not a file name (the file must lie beside the "
                        "library)");
  }
  // A plain name, but the table (on the stack here) is in no loaded file,
  // so there is no folder to look in.
  desc.weights_file = "add_one.weights";
  EXPECT_EQ(mxrt_model_from_descriptor(&desc, &model), MXRT_NOT_FOUND);
  EXPECT_THAT(mxrt_last_error(),
              HasSubstr("cannot tell which file holds the model, so its "
                        "weights file 'add_one.weights' cannot be found"));

  // The tables copied, for one field of them at a time to be broken.
  mxrt_tensor_desc param = addOneParams[0];
  mxrt_tensor_desc input = addOneInputs[0], output = addOneOutputs[0];
  mxrt_function_desc function = addOneFunctions[0];
  function.inputs = &input;
  function.outputs = &output;
  desc = addOneDesc();
  desc.params = &param;
  desc.functions = &function;
  ASSERT_EQ(mxrt_model_from_descriptor(&desc, &model), MXRT_OK)
      << mxrt_last_error();
  mxrt_model_release(model);
  model = nullptr;
  auto expectRefusedThenRestore = [&](const char *words) {
    expectRefused(desc, words);
    param = addOneParams[0];
    input = addOneInputs[0];
    output = addOneOutputs[0];
    function.entry = addOneFunctions[0].entry;
  };
  param.offset = 120;
  expectRefusedThenRestore("parameter 'p' (offset 120, 16 bytes) lies "
                           "outside the 128-byte weights");
  param.size_bytes = 12;
  expectRefusedThenRestore("'p' claims 12 bytes");
  function.entry = nullptr;
  expectRefusedThenRestore("entry point");
  input.dtype = 42;
  expectRefusedThenRestore("input 'in' has unknown dtype 42");
  output.ndim = 9;
  expectRefusedThenRestore("output 'out' has an invalid rank 9");

  // A version-1 table (no flags, no states) is refused, not misread.
  desc = addOneDesc();
  desc.abi_version = 1;
  EXPECT_EQ(mxrt_model_from_descriptor(&desc, &model), MXRT_UNSUPPORTED);
  EXPECT_THAT(mxrt_last_error(),
              AllOf(HasSubstr("add_one"), HasSubstr("ABI version 1"),
                    HasSubstr("supports only version " +
                              std::to_string(MXRT_MODEL_ABI_VERSION)),
                    HasSubstr("recompile it with this mxc")));

  EXPECT_EQ(mxrt_model_from_descriptor(nullptr, &model), MXRT_INVALID_ARGUMENT);
  EXPECT_EQ(mxrt_model_from_descriptor(&good, nullptr), MXRT_INVALID_ARGUMENT);
}

bool hasNvidiaGpu() { return access("/dev/nvidiactl", F_OK) == 0; }

TEST(Model, ACudaModelWithoutAGpuIsRefusedNotRun) {
  // The add-one table marked as compiled for CUDA: on a machine without a
  // GPU and driver, opening it must fail saying why (its entry point, a
  // CPU function here, must never be called with host pointers).
  mxrt_model_desc desc = addOneDesc();
  desc.flags = MXRT_MODEL_CUDA;
  mxrt_model *model = nullptr;
  mxrt_instance *instance = nullptr;
  if (hasNvidiaGpu())
    GTEST_SKIP() << "this machine has an NVIDIA GPU";
  EXPECT_EQ(mxrt_model_from_descriptor(&desc, &model), MXRT_UNSUPPORTED);
  EXPECT_THAT(mxrt_last_error(),
              AllOf(HasSubstr("add_one"),
                    HasSubstr("compiled for NVIDIA GPUs (mxc --target=cuda)"),
                    HasSubstr("cannot run it")));
  EXPECT_EQ(model, nullptr);
  EXPECT_EQ(mxrt_instance_create_static(&desc, nullptr, &instance),
            MXRT_UNSUPPORTED);
  EXPECT_EQ(instance, nullptr);
}

TEST(Model, ACudaTrainingModelWithoutAGpuIsRefusedForTheGpu) {
  // Training libraries run on CUDA too: without a GPU, the reason is the
  // missing GPU, as for inference, not the kind of library.
  mxrt_model_desc desc = addOneDesc();
  desc.flags = MXRT_MODEL_CUDA | MXRT_MODEL_TRAINABLE;
  mxrt_model *model = nullptr;
  if (hasNvidiaGpu())
    GTEST_SKIP() << "this machine has an NVIDIA GPU";
  EXPECT_EQ(mxrt_model_from_descriptor(&desc, &model), MXRT_UNSUPPORTED);
  EXPECT_THAT(mxrt_last_error(), AllOf(HasSubstr("compiled for NVIDIA GPUs"),
                                       HasSubstr("cannot run it")));
  EXPECT_EQ(model, nullptr);
}

//===------------------------------------------------------------------===//
// Dynamic dimensions: a model whose functions come in batch variants
//===------------------------------------------------------------------===//

namespace rows {

// Dimensions N (1..64) and M (0 and up, unbounded), and two functions:
//   forward: x (Nx3 f32), mask (N f32) -> y (Nx3 f32), last (f32 scalar)
//            y[r][j] = w[j] x[r][j] + mask[r] + 1000 b,  last = b
//            where b is the batch of the variant (1 or 4 rows) that
//            computed row r, and w (3) a parameter;
//   shift:   v (M f32) -> s (M f32) = v + 1, in variants of 1 and 2 rows.
// The variant of 4 rows asks for 1 MiB of scratch and writes all of it.

constexpr int64_t cols = 3;
constexpr int64_t bigScratch = int64_t(1) << 20, smallScratch = 64;
alignas(64) const float weights[16] = {2, 3, 4};
/// Variant calls since a test last reset it, and the scratch of the last.
int calls = 0;
uint8_t *lastScratch = nullptr;

template <int64_t Batch>
void forward(void *const *buffers, mxrt_exec_context *ctx) {
  ++calls;
  const auto *x = static_cast<const float *>(buffers[0]);
  const auto *mask = static_cast<const float *>(buffers[1]);
  auto *y = static_cast<float *>(buffers[2]);
  const auto *w = static_cast<const float *>(buffers[4]);
  // All the scratch the variant asked for: a short one shows in sanitized
  // builds, a missing one as NaNs.
  bool ok = ctx->scratch && reinterpret_cast<uintptr_t>(ctx->scratch) % 64 == 0;
  if (ok)
    std::memset(ctx->scratch, int(Batch),
                size_t(Batch == 4 ? bigScratch : smallScratch));
  lastScratch = ctx->scratch;
  for (int64_t r = 0; r < Batch; ++r)
    for (int64_t j = 0; j < cols; ++j)
      y[r * cols + j] =
          ok ? w[j] * x[r * cols + j] + mask[r] + 1000.0f * Batch : NAN;
  *static_cast<float *>(buffers[3]) = float(Batch);
}

template <int64_t Batch> void shift(void *const *buffers, mxrt_exec_context *) {
  ++calls;
  const auto *v = static_cast<const float *>(buffers[0]);
  auto *s = static_cast<float *>(buffers[1]);
  for (int64_t r = 0; r < Batch; ++r)
    s[r] = v[r] + 1;
}

const int64_t shapeNx3[] = {MXRT_DIM_EXTENT(0), cols};
const int64_t shapeN[] = {MXRT_DIM_EXTENT(0)};
const int64_t shapeM[] = {MXRT_DIM_EXTENT(1)};
const int64_t shape3[] = {cols};
const mxrt_tensor_desc forwardInputs[] = {
    {"x", MXRT_F32, 2, shapeNx3, 0, cols * 4, 0},
    {"mask", MXRT_F32, 1, shapeN, 0, 4, 0}};
const mxrt_tensor_desc forwardOutputs[] = {
    {"y", MXRT_F32, 2, shapeNx3, 0, cols * 4, 0},
    {"last", MXRT_F32, 0, nullptr, 0, 4, 0}};
const mxrt_variant_desc forwardVariants[] = {{1, forward<1>, smallScratch},
                                             {4, forward<4>, bigScratch}};
const mxrt_tensor_desc shiftInputs[] = {{"v", MXRT_F32, 1, shapeM, 0, 4, 0}};
const mxrt_tensor_desc shiftOutputs[] = {{"s", MXRT_F32, 1, shapeM, 0, 4, 0}};
const mxrt_variant_desc shiftVariants[] = {{1, shift<1>, 0}, {2, shift<2>, 0}};
const mxrt_function_desc functions[] = {
    {"forward", 2, forwardInputs, 2, forwardOutputs, nullptr, bigScratch, 0, 2,
     forwardVariants, 0},
    {"shift", 1, shiftInputs, 1, shiftOutputs, nullptr, 0, 0, 2, shiftVariants,
     1}};
const mxrt_tensor_desc params[] = {{"w", MXRT_F32, 1, shape3, 0, cols * 4, 0}};
const mxrt_dim_desc dims[] = {{"N", 1, 64}, {"M", 0, -1}};

mxrt_model_desc desc() {
  return {MXRT_MODEL_ABI_VERSION,
          "rows",
          2,
          functions,
          1,
          params,
          reinterpret_cast<const uint8_t *>(weights),
          sizeof(weights),
          /*num_states=*/0,
          /*states=*/nullptr,
          /*flags=*/0,
          /*weights_file=*/nullptr,
          /*weights_hash=*/0,
          /*num_dims=*/2,
          dims};
}

ModelPtr open() {
  static const mxrt_model_desc table = desc();
  mxrt_model *model = nullptr;
  EXPECT_EQ(mxrt_model_from_descriptor(&table, &model), MXRT_OK)
      << mxrt_last_error();
  return ModelPtr(model);
}

constexpr float sentinel = -7777.0f;

/// forward's tensors for `n` rows: x[r][j] = r + j / 4, mask[r] = r / 2, and
/// outputs holding a sentinel.
struct Tensors {
  int64_t n;
  TensorPtr x, mask, y, last;

  explicit Tensors(int64_t rows)
      : n(rows), x(newTensor(MXRT_F32, {rows, cols})),
        mask(newTensor(MXRT_F32, {rows})), y(newTensor(MXRT_F32, {rows, cols})),
        last(newTensor(MXRT_F32, {})) {
    for (int64_t r = 0; r < n; ++r) {
      for (int64_t j = 0; j < cols; ++j)
        at(x)[r * cols + j] = float(r) + float(j) / 4;
      at(mask)[r] = float(r) / 2;
    }
    resetOutputs();
  }
  static float *at(const TensorPtr &t) {
    return static_cast<float *>(mxrt_tensor_data(t.get()));
  }
  void resetOutputs() {
    std::fill(at(y), at(y) + n * cols, sentinel);
    *at(last) = sentinel;
  }
  mxrt_status run(mxrt_instance *instance) {
    mxrt_tensor *inputs[] = {x.get(), mask.get()};
    mxrt_tensor *outputs[] = {y.get(), last.get()};
    return mxrt_instance_run(instance, inputs, 2, outputs, 2);
  }
  /// Expects the first `rowsRun` rows (all by default) computed by variants
  /// of 4 rows as long as 4 remained, then of 1, and the rest untouched.
  void expectComputed(int64_t rowsRun = -1) {
    if (rowsRun < 0)
      rowsRun = n;
    int64_t byFour = rowsRun / 4 * 4;
    for (int64_t r = 0; r < n; ++r)
      for (int64_t j = 0; j < cols; ++j) {
        float expected = r >= rowsRun
                             ? sentinel
                             : weights[j] * at(x)[r * cols + j] + at(mask)[r] +
                                   1000.0f * (r < byFour ? 4 : 1);
        ASSERT_EQ(at(y)[r * cols + j], expected)
            << "y[" << r << "][" << j << "] of " << rowsRun << " rows";
      }
    EXPECT_EQ(*at(last), rowsRun == 0       ? sentinel
                         : rowsRun % 4 == 0 ? 4.0f
                                            : 1.0f);
  }
  void expectUntouched() { expectComputed(0); }
};

} // namespace rows

TEST(DynamicDims, InfoShowsDimensionsAndDynamicExtents) {
  ModelPtr model = rows::open();
  ASSERT_TRUE(model);
  ASSERT_EQ(mxrt_model_num_dims(model.get()), 2);
  mxrt_dim_info dim;
  ASSERT_EQ(mxrt_model_dim_info(model.get(), 0, &dim), MXRT_OK);
  EXPECT_STREQ(dim.name, "N");
  EXPECT_EQ(dim.min, 1);
  EXPECT_EQ(dim.max, 64);
  ASSERT_EQ(mxrt_model_dim_info(model.get(), 1, &dim), MXRT_OK);
  EXPECT_STREQ(dim.name, "M");
  EXPECT_EQ(dim.min, 0);
  EXPECT_EQ(dim.max, -1);
  EXPECT_EQ(mxrt_model_dim_info(model.get(), 2, &dim), MXRT_NOT_FOUND);
  EXPECT_THAT(mxrt_last_error(),
              HasSubstr("index 2 is out of range (model 'rows' has 2 dynamic "
                        "dimensions)"));
  EXPECT_EQ(mxrt_model_dim_info(model.get(), 0, nullptr),
            MXRT_INVALID_ARGUMENT);
  EXPECT_EQ(mxrt_model_num_dims(nullptr), 0);

  // Shapes hold the dynamic extents as the table does.
  mxrt_tensor_info info;
  ASSERT_EQ(mxrt_model_input_info(model.get(), 0, &info), MXRT_OK);
  ASSERT_EQ(info.ndim, 2);
  EXPECT_EQ(info.shape[0], -1);
  EXPECT_EQ(info.shape[1], 3);
  const int64_t values[] = {11, 5};
  int64_t shape[2] = {};
  mxrt_resolve_shape(&info, values, shape);
  EXPECT_EQ(shape[0], 11);
  EXPECT_EQ(shape[1], 3);
  ASSERT_EQ(mxrt_model_function_output_info(model.get(), 1, 0, &info), MXRT_OK);
  EXPECT_EQ(info.shape[0], MXRT_DIM_EXTENT(1));
  mxrt_resolve_shape(&info, values, shape);
  EXPECT_EQ(shape[0], 5);
  ASSERT_EQ(mxrt_model_output_info(model.get(), 1, &info), MXRT_OK);
  EXPECT_EQ(info.ndim, 0);

  static const mxrt_model_desc staticDesc = addOneDesc();
  mxrt_model *raw = nullptr;
  ASSERT_EQ(mxrt_model_from_descriptor(&staticDesc, &raw), MXRT_OK);
  EXPECT_EQ(mxrt_model_num_dims(ModelPtr(raw).get()), 0);
}

// A call on N rows runs the variant of 4 rows while 4 remain, then that of
// 1, each on its slice of the batched inputs and outputs; `last`, which has
// no batch dimension, and the parameter are passed as they are.
TEST(DynamicDims, RunSplitsTheRowsAcrossTheVariants) {
  ModelPtr model = rows::open();
  InstancePtr instance = model ? newInstance(model.get()) : InstancePtr();
  ASSERT_TRUE(model && instance);
  for (int64_t n : {1, 3, 4, 5, 8, 11, 64}) {
    rows::Tensors t(n);
    rows::calls = 0;
    ASSERT_EQ(t.run(instance.get()), MXRT_OK) << mxrt_last_error();
    t.expectComputed();
    EXPECT_EQ(rows::calls, n / 4 + n % 4) << n << " rows";
  }
  // mxrt_instance_call takes the same path.
  rows::Tensors t(6);
  mxrt_tensor *inputs[] = {t.x.get(), t.mask.get()};
  mxrt_tensor *outputs[] = {t.y.get(), t.last.get()};
  ASSERT_EQ(mxrt_instance_call(instance.get(), 0, inputs, 2, outputs, 2),
            MXRT_OK)
      << mxrt_last_error();
  t.expectComputed();
}

TEST(DynamicDims, BindDimsTakesTheValuesFromTheInputs) {
  ModelPtr model = rows::open();
  ASSERT_TRUE(model);
  TensorPtr x = newTensor(MXRT_F32, {5, 3}), mask = newTensor(MXRT_F32, {5}),
            mask3 = newTensor(MXRT_F32, {3});
  int64_t dims[2] = {99, 99};
  mxrt_tensor *inputs[] = {x.get(), mask.get()};
  ASSERT_EQ(mxrt_model_bind_dims(model.get(), 0, inputs, 2, dims), MXRT_OK)
      << mxrt_last_error();
  EXPECT_EQ(dims[0], 5);
  EXPECT_EQ(dims[1], -1); // forward has no M
  // NULL inputs are skipped: the others give the values, or none (-1).
  mxrt_tensor *maskOnly[] = {nullptr, mask3.get()};
  ASSERT_EQ(mxrt_model_bind_dims(model.get(), 0, maskOnly, 2, dims), MXRT_OK);
  EXPECT_EQ(dims[0], 3);
  mxrt_tensor *none[] = {nullptr, nullptr};
  ASSERT_EQ(mxrt_model_bind_dims(model.get(), 0, none, 2, dims), MXRT_OK);
  EXPECT_EQ(dims[0], -1);
  TensorPtr v = newTensor(MXRT_F32, {1000});
  mxrt_tensor *shiftInputs[] = {v.get()};
  ASSERT_EQ(mxrt_model_bind_dims(model.get(), 1, shiftInputs, 1, dims),
            MXRT_OK);
  EXPECT_EQ(dims[0], -1);
  EXPECT_EQ(dims[1], 1000); // unbounded

  // Errors name the input, the axis, the dimension and both values, and
  // leave out_dims alone.
  auto expectRefused = [&](mxrt_tensor *first, mxrt_tensor *second,
                           const char *message) {
    int64_t untouched[2] = {42, 42};
    mxrt_tensor *in[] = {first, second};
    EXPECT_EQ(mxrt_model_bind_dims(model.get(), 0, in, 2, untouched),
              MXRT_INVALID_ARGUMENT);
    EXPECT_THAT(mxrt_last_error(), StrEq(message));
    EXPECT_EQ(untouched[0], 42);
  };
  TensorPtr tall = newTensor(MXRT_F32, {65, 3}),
            empty = newTensor(MXRT_F32, {0, 3}),
            wide = newTensor(MXRT_F32, {5, 4}),
            flat = newTensor(MXRT_F32, {15});
  expectRefused(x.get(), mask3.get(),
                "input 'mask' axis 0 (dimension N) is 3, but input 'x' gave "
                "N = 5");
  expectRefused(tall.get(), nullptr,
                "input 'x' axis 0 (dimension N) is 65, above its bound 64");
  expectRefused(empty.get(), nullptr,
                "input 'x' axis 0 (dimension N) is 0, below its minimum 1");
  expectRefused(wide.get(), nullptr,
                "input 'x': expected shape Nx3 float32, got 5x4 float32");
  expectRefused(flat.get(), nullptr,
                "input 'x': expected shape Nx3 float32, got 15 float32");

  EXPECT_EQ(mxrt_model_bind_dims(model.get(), 0, inputs, 1, dims),
            MXRT_INVALID_ARGUMENT);
  EXPECT_THAT(mxrt_last_error(),
              HasSubstr("function 'forward' of model 'rows' takes 2 inputs, "
                        "got 1"));
  EXPECT_EQ(mxrt_model_bind_dims(model.get(), 2, inputs, 2, dims),
            MXRT_NOT_FOUND);
  EXPECT_EQ(mxrt_model_bind_dims(model.get(), 0, inputs, 2, nullptr),
            MXRT_INVALID_ARGUMENT);
  EXPECT_EQ(mxrt_model_bind_dims(nullptr, 0, inputs, 2, dims),
            MXRT_INVALID_ARGUMENT);

  // Static models check the shapes, and have no values to give.
  static const mxrt_model_desc staticDesc = addOneDesc();
  mxrt_model *raw = nullptr;
  ASSERT_EQ(mxrt_model_from_descriptor(&staticDesc, &raw), MXRT_OK);
  ModelPtr addOne(raw);
  TensorPtr four = newTensor(MXRT_F32, {4}), five = newTensor(MXRT_F32, {5});
  mxrt_tensor *good[] = {four.get()}, *bad[] = {five.get()};
  EXPECT_EQ(mxrt_model_bind_dims(addOne.get(), 0, good, 1, nullptr), MXRT_OK);
  EXPECT_EQ(mxrt_model_bind_dims(addOne.get(), 0, bad, 1, nullptr),
            MXRT_INVALID_ARGUMENT);
  EXPECT_THAT(mxrt_last_error(),
              StrEq("input 'in': expected shape 4 float32, got 5 float32"));
}

// Every check comes before the first variant runs, so that a refused call
// leaves the outputs as they were.
TEST(DynamicDims, RunChecksEveryShapeBeforeRunning) {
  ModelPtr model = rows::open();
  InstancePtr instance = model ? newInstance(model.get()) : InstancePtr();
  ASSERT_TRUE(model && instance);
  rows::Tensors t(5);
  mxrt_tensor *x = t.x.get(), *mask = t.mask.get(), *y = t.y.get(),
              *last = t.last.get();
  TensorPtr mask3 = newTensor(MXRT_F32, {3}),
            tall = newTensor(MXRT_F32, {65, 3}),
            mask65 = newTensor(MXRT_F32, {65}),
            empty = newTensor(MXRT_F32, {0, 3}),
            mask0 = newTensor(MXRT_F32, {0}),
            wide = newTensor(MXRT_F32, {5, 4}),
            y4 = newTensor(MXRT_F32, {4, 3}), y64 = newTensor(MXRT_F64, {5, 3}),
            last1 = newTensor(MXRT_F32, {1});
  rows::calls = 0;
  auto expectRefused = [&](std::vector<mxrt_tensor *> in,
                           std::vector<mxrt_tensor *> out,
                           const char *message) {
    EXPECT_EQ(mxrt_instance_run(instance.get(), in.data(), int32_t(in.size()),
                                out.data(), int32_t(out.size())),
              MXRT_INVALID_ARGUMENT);
    EXPECT_THAT(mxrt_last_error(), StrEq(message));
    EXPECT_EQ(mxrt_instance_call(instance.get(), 0, in.data(),
                                 int32_t(in.size()), out.data(),
                                 int32_t(out.size())),
              MXRT_INVALID_ARGUMENT);
    EXPECT_THAT(mxrt_last_error(), StrEq(message));
  };
  expectRefused({x, mask3.get()}, {y, last},
                "input 'mask' axis 0 (dimension N) is 3, but input 'x' gave "
                "N = 5");
  expectRefused({tall.get(), mask65.get()}, {y, last},
                "input 'x' axis 0 (dimension N) is 65, above its bound 64");
  expectRefused({empty.get(), mask0.get()}, {y, last},
                "input 'x' axis 0 (dimension N) is 0, below its minimum 1");
  expectRefused({wide.get(), mask}, {y, last},
                "input 'x': expected shape Nx3 float32, got 5x4 float32");
  expectRefused({x, mask}, {y4.get(), last},
                "output 'y' axis 0 (dimension N) is 4, but input 'x' gave "
                "N = 5");
  expectRefused({x, mask}, {y64.get(), last},
                "output 'y': expected shape Nx3 float32, got 5x3 float64");
  expectRefused({x, mask}, {y, last1.get()},
                "output 'last': expected shape scalar float32, got 1 float32");
  expectRefused({x, mask}, {y, nullptr}, "output 'last' (#1) is NULL");
  EXPECT_EQ(rows::calls, 0);
  t.expectUntouched();
  ASSERT_EQ(t.run(instance.get()), MXRT_OK) << mxrt_last_error();
  t.expectComputed();
}

TEST(DynamicDims, ZeroRowsRunNothing) {
  ModelPtr model = rows::open();
  InstancePtr instance = model ? newInstance(model.get()) : InstancePtr();
  ASSERT_TRUE(model && instance);
  // shift's M may be 0: the call succeeds without running a variant.
  TensorPtr v0 = newTensor(MXRT_F32, {0}), s0 = newTensor(MXRT_F32, {0});
  mxrt_tensor *in0[] = {v0.get()}, *out0[] = {s0.get()};
  rows::calls = 0;
  ASSERT_EQ(mxrt_instance_call(instance.get(), 1, in0, 1, out0, 1), MXRT_OK)
      << mxrt_last_error();
  EXPECT_EQ(rows::calls, 0);
  // M has no bound: 1001 rows are 500 calls of 2 rows and one of 1.
  TensorPtr v = newTensor(MXRT_F32, {1001}), s = newTensor(MXRT_F32, {1001});
  auto *vData = static_cast<float *>(mxrt_tensor_data(v.get()));
  auto *sData = static_cast<float *>(mxrt_tensor_data(s.get()));
  for (int i = 0; i < 1001; ++i)
    vData[i] = float(i);
  mxrt_tensor *in[] = {v.get()}, *out[] = {s.get()};
  ASSERT_EQ(mxrt_instance_call(instance.get(), 1, in, 1, out, 1), MXRT_OK)
      << mxrt_last_error();
  EXPECT_EQ(rows::calls, 501);
  for (int i = 0; i < 1001; ++i)
    ASSERT_EQ(sData[i], float(i + 1)) << i;
}

TEST(DynamicDims, RunRawDimsTakesTheDimensionsValues) {
  ModelPtr model = rows::open();
  InstancePtr instance = model ? newInstance(model.get()) : InstancePtr();
  ASSERT_TRUE(model && instance);
  rows::Tensors t(11);
  const void *inputs[] = {rows::Tensors::at(t.x), rows::Tensors::at(t.mask)};
  void *outputs[] = {rows::Tensors::at(t.y), rows::Tensors::at(t.last)};
  const int64_t dims[] = {11, -1}; // forward has no M: not read
  ASSERT_EQ(mxrt_instance_run_raw_dims(instance.get(), dims, inputs, outputs),
            MXRT_OK)
      << mxrt_last_error();
  t.expectComputed();

  t.resetOutputs();
  rows::calls = 0;
  const int64_t tooMany[] = {65, 0}, tooFew[] = {0, 0};
  EXPECT_EQ(
      mxrt_instance_run_raw_dims(instance.get(), tooMany, inputs, outputs),
      MXRT_INVALID_ARGUMENT);
  EXPECT_THAT(mxrt_last_error(),
              StrEq("mxrt_instance_run_raw_dims: dimension N of model 'rows' "
                    "is 65, above its bound 64"));
  EXPECT_EQ(mxrt_instance_run_raw_dims(instance.get(), tooFew, inputs, outputs),
            MXRT_INVALID_ARGUMENT);
  EXPECT_THAT(mxrt_last_error(), HasSubstr("is 0, below its minimum 1"));
  EXPECT_EQ(
      mxrt_instance_run_raw_dims(instance.get(), nullptr, inputs, outputs),
      MXRT_INVALID_ARGUMENT);
  EXPECT_THAT(mxrt_last_error(),
              HasSubstr("dims is NULL, but model 'rows' has dynamic "
                        "dimensions"));
  // The raw calls without values cannot tell the extents.
  EXPECT_EQ(mxrt_instance_run_raw(instance.get(), inputs, outputs),
            MXRT_INVALID_ARGUMENT);
  EXPECT_THAT(mxrt_last_error(),
              StrEq("mxrt_instance_run_raw: model 'rows' has dynamic dimension "
                    "'N'; call mxrt_instance_run_raw_dims with its value"));
  EXPECT_EQ(mxrt_instance_call_raw(instance.get(), 1, inputs, outputs),
            MXRT_INVALID_ARGUMENT);
  EXPECT_THAT(mxrt_last_error(),
              StrEq("mxrt_instance_call_raw: function 'shift' of model 'rows' "
                    "has dynamic dimension 'M'; call "
                    "mxrt_instance_call_raw_dims with its value"));
  EXPECT_EQ(rows::calls, 0);
  t.expectUntouched();

  // Fewer rows than the buffers hold: the others are left alone.
  const int64_t four[] = {4, -1};
  ASSERT_EQ(mxrt_instance_run_raw_dims(instance.get(), four, inputs, outputs),
            MXRT_OK);
  t.expectComputed(4);

  // A model without dynamic dimensions needs no values.
  static const mxrt_model_desc staticDesc = addOneDesc();
  mxrt_instance *raw = nullptr;
  ASSERT_EQ(mxrt_instance_create_static(&staticDesc, nullptr, &raw), MXRT_OK);
  InstancePtr addOne(raw);
  alignas(64) float x[4] = {1, 2, 3, 4}, y[4] = {};
  const void *in[] = {x};
  void *out[] = {y};
  ASSERT_EQ(mxrt_instance_run_raw_dims(raw, nullptr, in, out), MXRT_OK)
      << mxrt_last_error();
  EXPECT_EQ(y[3], 5.0f);
}

/// Bytes glibc's heap has handed out and not taken back.
size_t heapInUse() {
  struct mallinfo2 info = mallinfo2();
  return info.uordblks + info.hblkhd;
}

// An instance gets the scratch of the variants its calls run, when a call
// first needs it, not the largest variant's up front; steady calls allocate
// nothing.
TEST(DynamicDims, ScratchGrowsWithTheVariantsUsed) {
  // Sanitizers replace malloc, which mallinfo2 then does not see.
  // (volatile: an unused allocation may be left out.)
  size_t before = heapInUse();
  void *volatile probe = std::malloc(size_t(4) << 20);
  bool measurable = heapInUse() >= before + (size_t(4) << 20);
  std::free(probe);

  ModelPtr model = rows::open();
  ASSERT_TRUE(model);
  rows::Tensors three(3), eleven(11);
  size_t atStart = heapInUse();
  InstancePtr instance = newInstance(model.get());
  ASSERT_TRUE(instance);
  // 3 rows run the variant of 1 row three times: 64 bytes of scratch.
  ASSERT_EQ(three.run(instance.get()), MXRT_OK) << mxrt_last_error();
  three.expectComputed();
  EXPECT_NE(rows::lastScratch, nullptr);
  if (measurable)
    EXPECT_LT(heapInUse() - atStart, size_t(rows::bigScratch / 2))
        << "the instance holds the largest variant's scratch";
  // 11 rows run the variant of 4 rows too: its 1 MiB, once.
  size_t beforeGrowth = heapInUse();
  ASSERT_EQ(eleven.run(instance.get()), MXRT_OK) << mxrt_last_error();
  eleven.expectComputed();
  uint8_t *grown = rows::lastScratch;
  if (measurable)
    EXPECT_GE(heapInUse(), beforeGrowth + rows::bigScratch / 2);
  size_t steady = heapInUse();
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(eleven.run(instance.get()), MXRT_OK);
    EXPECT_EQ(rows::lastScratch, grown);
    ASSERT_EQ(three.run(instance.get()), MXRT_OK);
    EXPECT_EQ(rows::lastScratch, grown);
  }
  three.expectComputed();
  eleven.expectComputed();
  if (measurable)
    EXPECT_EQ(heapInUse(), steady);
  else
    GTEST_SKIP() << "the allocator is not glibc's: the heap was not measured";
}

TEST(DynamicDims, WholeBatchFunctionsRunOnlyTheirOwnBatches) {
  // forward's variants of 1 and 4 rows as a whole-batch function (a
  // training step's): 4 rows run the 4-row variant once, 1 row the 1-row
  // one; 5 rows, which row splitting would serve, are refused before
  // anything runs, naming the dimension, the value and the batches.
  mxrt_function_desc functions[2] = {rows::functions[0], rows::functions[1]};
  functions[0].flags = MXRT_FUNCTION_WHOLE_BATCH;
  mxrt_model_desc desc = rows::desc();
  desc.functions = functions;
  mxrt_model *raw = nullptr;
  ASSERT_EQ(mxrt_model_from_descriptor(&desc, &raw), MXRT_OK)
      << mxrt_last_error();
  ModelPtr model(raw);
  InstancePtr instance = newInstance(model.get());
  for (int64_t n : {4, 1}) {
    rows::Tensors t(n);
    rows::calls = 0;
    ASSERT_EQ(t.run(instance.get()), MXRT_OK) << mxrt_last_error();
    EXPECT_EQ(rows::calls, 1);
    t.expectComputed();
  }
  rows::Tensors t(5);
  rows::calls = 0;
  EXPECT_EQ(t.run(instance.get()), MXRT_INVALID_ARGUMENT);
  EXPECT_THAT(mxrt_last_error(),
              StrEq("model 'rows': N=5, but the function mixes the rows of "
                    "its batch (a mean loss, batch statistics) and was "
                    "compiled for N=1 or 4 only (mxc --buckets)"));
  EXPECT_EQ(rows::calls, 0);
  t.expectUntouched();
}

TEST(DynamicDims, FromDescriptorValidatesDimensionsAndVariants) {
  // The tables copied, for one field of them at a time to be broken.
  mxrt_dim_desc dims[2];
  mxrt_tensor_desc inputs[2], outputs[2], param;
  mxrt_variant_desc variants[2];
  mxrt_function_desc functions[2];
  mxrt_model_desc desc;
  auto restore = [&] {
    std::copy(std::begin(rows::dims), std::end(rows::dims), dims);
    std::copy(std::begin(rows::forwardInputs), std::end(rows::forwardInputs),
              inputs);
    std::copy(std::begin(rows::forwardOutputs), std::end(rows::forwardOutputs),
              outputs);
    param = rows::params[0];
    std::copy(std::begin(rows::forwardVariants),
              std::end(rows::forwardVariants), variants);
    std::copy(std::begin(rows::functions), std::end(rows::functions),
              functions);
    functions[0].inputs = inputs;
    functions[0].outputs = outputs;
    functions[0].variants = variants;
    desc = rows::desc();
    desc.dims = dims;
    desc.functions = functions;
    desc.params = &param;
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

  desc.dims = nullptr;
  expectRefusedThenRestore("invalid dimension table (num_dims = 2)");
  desc.num_dims = -1;
  expectRefusedThenRestore("invalid dimension table (num_dims = -1)");
  dims[1].name = nullptr;
  expectRefusedThenRestore("dimension #1 has no name");
  dims[1].name = "N";
  expectRefusedThenRestore("two dimensions are named 'N'");
  dims[0].min = -1;
  expectRefusedThenRestore("dimension 'N' has bounds -1..64");
  dims[0].max = 0;
  expectRefusedThenRestore("dimension 'N' has bounds 1..0");
  dims[1].max = -2;
  expectRefusedThenRestore("dimension 'M' has bounds 0..-2");

  functions[0].variants = nullptr;
  expectRefusedThenRestore("function 'forward' has an invalid variant table "
                           "(num_variants = 2)");
  functions[0].num_variants = -1;
  expectRefusedThenRestore("(num_variants = -1)");
  functions[0].num_variants = 0; // and no entry of its own
  expectRefusedThenRestore("function #0 ('forward') has no name or entry "
                           "point");
  functions[0].num_variants = 0;
  functions[0].entry = rows::forward<1>;
  expectRefusedThenRestore("input 'x' has dynamic extent -1 on axis 0, but "
                           "only the inputs and outputs of a function with "
                           "variants or shapes may have one");
  variants[0].batch = 2;
  expectRefusedThenRestore("function 'forward' has a variant of batch 2 at "
                           "#0; the batches must increase from 1");
  functions[1].flags = MXRT_FUNCTION_WHOLE_BATCH;
  functions[1].num_variants = 0;
  functions[1].entry = rows::shift<1>;
  expectRefusedThenRestore("function 'shift' runs whole batches "
                           "(MXRT_FUNCTION_WHOLE_BATCH) but has no batch "
                           "variants");
  functions[0].flags = 4;
  expectRefusedThenRestore("function 'forward' has unknown flags 0x4");
  variants[1].batch = 1;
  expectRefusedThenRestore("a variant of batch 1 at #1");
  variants[1].entry = nullptr;
  expectRefusedThenRestore("function 'forward' has no entry point for batch "
                           "4");
  variants[1].scratch_size = rows::bigScratch * 2;
  expectRefusedThenRestore("function 'forward' claims 2097152 bytes of "
                           "scratch for batch 4, but 1048576 for the "
                           "function");
  functions[0].batch_dim = 2;
  expectRefusedThenRestore("function 'forward' has batch dimension #2, but "
                           "the model has 2 dimensions");
  functions[0].batch_dim = 1;
  expectRefusedThenRestore("input 'x' has dynamic extent -1 on axis 0, but "
                           "its function's one dynamic extent is its batch "
                           "dimension 'M' (-2), on axis 0");
  const int64_t onAxis1[] = {3, MXRT_DIM_EXTENT(0)};
  inputs[0].shape = onAxis1;
  expectRefusedThenRestore("input 'x' has dynamic extent -1 on axis 1");
  const int64_t outOfRange[] = {MXRT_DIM_EXTENT(7), 3};
  outputs[0].shape = outOfRange;
  expectRefusedThenRestore("output 'y' has dynamic extent -8 on axis 0");
  param.shape = rows::shapeN;
  param.ndim = 1;
  expectRefusedThenRestore("parameter 'w' has dynamic extent -1 on axis 0, "
                           "but only the inputs and outputs of a function "
                           "with variants or shapes may have one");
  // size_bytes counts the dynamic extent as 1.
  inputs[0].size_bytes = 5 * 12;
  expectRefusedThenRestore("input 'x' claims 60 bytes, but Nx3 float32 takes "
                           "12");
  functions[0].num_inputs = 0;
  expectRefusedThenRestore("function 'forward' has batch variants, but no "
                           "input has its batch dimension 'N'");

  desc.flags = MXRT_MODEL_CUDA;
  EXPECT_EQ(mxrt_model_from_descriptor(&desc, &model), MXRT_UNSUPPORTED);
  EXPECT_THAT(mxrt_last_error(),
              AllOf(HasSubstr("rows"),
                    HasSubstr("dynamic dimensions are not supported for CUDA "
                              "models yet")));
  restore();
  // A version-4 table (no dimensions, no variants) is refused, not misread.
  desc.abi_version = 4;
  EXPECT_EQ(mxrt_model_from_descriptor(&desc, &model), MXRT_UNSUPPORTED);
  EXPECT_THAT(mxrt_last_error(), HasSubstr("ABI version 4"));
}

} // namespace
