// SPDX-License-Identifier: Apache-2.0
//
// Small helpers shared by the runtime's GoogleTest suites: RAII handles for
// runtime objects and a scratch directory that cleans up after itself.

#ifndef MXRT_TEST_TESTUTIL_H
#define MXRT_TEST_TESTUTIL_H

#include "mxrt/model_abi.h"
#include "mxrt/mxrt.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

namespace mxrt_test {

struct TensorDeleter {
  void operator()(mxrt_tensor *tensor) const { mxrt_tensor_release(tensor); }
};
struct ModelDeleter {
  void operator()(mxrt_model *model) const { mxrt_model_release(model); }
};
struct InstanceDeleter {
  void operator()(mxrt_instance *instance) const {
    mxrt_instance_release(instance);
  }
};
using TensorPtr = std::unique_ptr<mxrt_tensor, TensorDeleter>;
using ModelPtr = std::unique_ptr<mxrt_model, ModelDeleter>;
using InstancePtr = std::unique_ptr<mxrt_instance, InstanceDeleter>;

/// A new instance of `model` (null, with a test failure, when refused).
inline InstancePtr newInstance(const mxrt_model *model) {
  mxrt_instance *instance = nullptr;
  EXPECT_EQ(mxrt_instance_create(model, nullptr, &instance), MXRT_OK)
      << mxrt_last_error();
  return InstancePtr(instance);
}

/// A new tensor of `dtype` and `shape` (its data uninitialized).
inline TensorPtr newTensor(mxrt_dtype dtype, std::vector<int64_t> shape) {
  mxrt_tensor *tensor = nullptr;
  EXPECT_EQ(mxrt_tensor_create(dtype, static_cast<int32_t>(shape.size()),
                               shape.data(), &tensor),
            MXRT_OK);
  return TensorPtr(tensor);
}

/// Expects `desc` to be refused with INVALID_ARGUMENT and a message holding
/// `words`.
inline void expectRefused(const mxrt_model_desc &desc, const char *words) {
  mxrt_model *model = nullptr;
  EXPECT_EQ(mxrt_model_from_descriptor(&desc, &model), MXRT_INVALID_ARGUMENT)
      << words;
  EXPECT_THAT(mxrt_last_error(), ::testing::HasSubstr(words));
  EXPECT_EQ(model, nullptr);
}

/// The signature of mxrt_model_find_input, _find_function and _find_param.
using FindFn = mxrt_status (*)(const mxrt_model *, const char *, int32_t *);

/// Expects `find` to give index `expected` for `present`, and to refuse
/// `missing` with NOT_FOUND and a message holding `words`, leaving the index
/// as it was. Returns the index found.
inline int32_t expectFinds(FindFn find, const mxrt_model *model,
                           const char *present, int32_t expected,
                           const char *missing, const char *words) {
  int32_t index = -1;
  EXPECT_EQ(find(model, present, &index), MXRT_OK) << mxrt_last_error();
  EXPECT_EQ(index, expected);
  EXPECT_EQ(find(model, missing, &index), MXRT_NOT_FOUND) << missing;
  EXPECT_THAT(mxrt_last_error(), ::testing::HasSubstr(words));
  EXPECT_EQ(index, expected);
  return index;
}

/// A fresh directory under the test's temp dir, removed with its contents.
class TempDir {
public:
  TempDir() {
    std::string pattern = ::testing::TempDir() + "mxrt-test-XXXXXX";
    if (!mkdtemp(pattern.data()))
      ADD_FAILURE() << "mkdtemp failed for " << pattern;
    path = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
  std::string file(const std::string &name) const { return path + "/" + name; }

  std::string path;
};

inline std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

inline void writeFile(const std::string &path, const std::string &bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
}

} // namespace mxrt_test

#endif // MXRT_TEST_TESTUTIL_H
