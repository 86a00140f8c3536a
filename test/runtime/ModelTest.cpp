// SPDX-License-Identifier: Apache-2.0
//
// Models and instances, through dlopen of the hand-written libaffine model
// (test_model.c) and through descriptors built here: inspection, runs, every
// argument check of run, descriptor validation and concurrent instances.

#include "TestUtil.h"

#include "mxrt/model_abi.h"

#include <atomic>
#include <cmath>
#include <thread>
#include <vector>

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

} // namespace
