// SPDX-License-Identifier: Apache-2.0
//
// Small helpers shared by the runtime's GoogleTest suites: RAII handles for
// runtime objects and a scratch directory that cleans up after itself.

#ifndef MXRT_TEST_TESTUTIL_H
#define MXRT_TEST_TESTUTIL_H

#include "mxrt/mxrt.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>

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
