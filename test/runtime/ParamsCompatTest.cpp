// SPDX-License-Identifier: Apache-2.0
//
// The runtime's .params files against the compiler's MXNet reader and writer
// (compiler/frontends/mxnet/Params.cpp): what a training instance saves, mxc
// --params must read back, and what mxc writes the runtime must load. Built
// only with the compiler, since the reader links LLVM Support and libmxrt
// must not.

#include "TestModels.h"
#include "TestUtil.h"

#include "compiler/frontends/mxnet/Params.h"

#include <cstring>
#include <vector>

using namespace mxrt_test;
using mxc::mxnet::ArrayKind;
using mxc::mxnet::DType;
using mxc::mxnet::NamedArray;
using ::testing::ElementsAre;

namespace {

struct Trainable {
  mxrt_model_desc desc;
  ModelPtr model;
  InstancePtr instance;

  explicit Trainable(const mxrt_model_desc &d) : desc(d) {
    mxrt_model *m = nullptr;
    EXPECT_EQ(mxrt_model_from_descriptor(&desc, &m), MXRT_OK)
        << mxrt_last_error();
    model.reset(m);
    mxrt_instance *i = nullptr;
    EXPECT_EQ(mxrt_instance_create(m, nullptr, &i), MXRT_OK)
        << mxrt_last_error();
    instance.reset(i);
  }
};

std::vector<float> asFloats(const NamedArray &array) {
  llvm::Expected<std::vector<float>> values = array.toFloat32();
  if (!values) {
    ADD_FAILURE() << llvm::toString(values.takeError());
    return {};
  }
  return *values;
}

TEST(ParamsCompat, CompilerReadsWhatTheRuntimeSaves) {
  Trainable linear(linear::desc());
  ASSERT_TRUE(linear.instance);
  // Parameters that differ from the embedded weights.
  const int64_t shape3[] = {3};
  float w[] = {-1.5f, 0.25f, 8};
  mxrt_tensor *tensor = nullptr;
  ASSERT_EQ(mxrt_tensor_wrap(MXRT_F32, 1, shape3, w, &tensor), MXRT_OK);
  TensorPtr wTensor(tensor);
  ASSERT_EQ(mxrt_instance_set_param(linear.instance.get(), 0, tensor), MXRT_OK);

  TempDir dir;
  std::string path = dir.file("linear.params");
  ASSERT_EQ(mxrt_instance_save_params(linear.instance.get(), path.c_str()),
            MXRT_OK)
      << mxrt_last_error();
  llvm::Expected<std::vector<NamedArray>> arrays =
      mxc::mxnet::readParamsFile(path);
  ASSERT_TRUE(bool(arrays)) << llvm::toString(arrays.takeError());
  ASSERT_EQ(arrays->size(), 3u);
  const NamedArray &wArray = (*arrays)[0], &b = (*arrays)[1],
                   &mean = (*arrays)[2];
  EXPECT_EQ(wArray.name, "w");
  EXPECT_EQ(wArray.kind, ArrayKind::Arg);
  EXPECT_EQ(wArray.dtype, DType::F32);
  EXPECT_THAT(wArray.shape, ElementsAre(3));
  EXPECT_THAT(asFloats(wArray), ElementsAre(-1.5f, 0.25f, 8));
  EXPECT_EQ(b.name, "b");
  EXPECT_EQ(b.kind, ArrayKind::Arg);
  EXPECT_THAT(b.shape, ElementsAre(1));
  EXPECT_THAT(asFloats(b), ElementsAre(0.5f));
  EXPECT_EQ(mean.name, "running_mean");
  EXPECT_EQ(mean.kind, ArrayKind::Aux);
  EXPECT_FALSE(mean.isNone);
  EXPECT_THAT(asFloats(mean), ElementsAre(0, 0, 0));

  // A 0-d float16 parameter: a V3 scalar, not a none array.
  Trainable half(halfscale::desc());
  ASSERT_TRUE(half.instance);
  std::string halfPath = dir.file("half.params");
  ASSERT_EQ(mxrt_instance_save_params(half.instance.get(), halfPath.c_str()),
            MXRT_OK)
      << mxrt_last_error();
  arrays = mxc::mxnet::readParamsFile(halfPath);
  ASSERT_TRUE(bool(arrays)) << llvm::toString(arrays.takeError());
  ASSERT_EQ(arrays->size(), 1u);
  EXPECT_EQ((*arrays)[0].name, "scale");
  EXPECT_FALSE((*arrays)[0].isNone);
  EXPECT_TRUE((*arrays)[0].shape.empty());
  EXPECT_EQ((*arrays)[0].dtype, DType::F16);
  EXPECT_THAT(asFloats((*arrays)[0]), ElementsAre(1.0f));
}

TEST(ParamsCompat, RuntimeLoadsWhatTheCompilerWrites) {
  auto array = [](std::string name, ArrayKind kind, DType dtype,
                  std::vector<int64_t> shape, const void *data, size_t size) {
    NamedArray result;
    result.name = std::move(name);
    result.kind = kind;
    result.dtype = dtype;
    result.shape = std::move(shape);
    const auto *bytes = static_cast<const uint8_t *>(data);
    result.data.assign(bytes, bytes + size);
    return result;
  };
  const float w[] = {4, 5, 6};
  const double b[] = {-0.75};
  const float mean[] = {0.5f, 0.25f, 0.125f};
  std::vector<NamedArray> arrays = {
      array("running_mean", ArrayKind::Aux, DType::F32, {3}, mean,
            sizeof(mean)),
      array("b", ArrayKind::Arg, DType::F64, {1}, b, sizeof(b)),
      array("w", ArrayKind::Arg, DType::F32, {3}, w, sizeof(w)),
  };
  TempDir dir;
  std::string path = dir.file("from-mxc.params");
  if (llvm::Error error = mxc::mxnet::writeParamsFile(path, arrays))
    FAIL() << llvm::toString(std::move(error));

  Trainable linear(linear::desc());
  ASSERT_TRUE(linear.instance);
  ASSERT_EQ(mxrt_instance_load_params(linear.instance.get(), path.c_str()),
            MXRT_OK)
      << mxrt_last_error();
  auto param = [&](int32_t index, int64_t count) {
    std::vector<float> values(count);
    mxrt_tensor *tensor = nullptr;
    EXPECT_EQ(mxrt_tensor_wrap(MXRT_F32, 1, &count, values.data(), &tensor),
              MXRT_OK);
    EXPECT_EQ(mxrt_instance_get_param(linear.instance.get(), index, tensor),
              MXRT_OK)
        << mxrt_last_error();
    mxrt_tensor_release(tensor);
    return values;
  };
  EXPECT_THAT(param(0, 3), ElementsAre(4, 5, 6));
  EXPECT_THAT(param(1, 1), ElementsAre(-0.75f));
  EXPECT_THAT(param(2, 3), ElementsAre(0.5f, 0.25f, 0.125f));
}

} // namespace
