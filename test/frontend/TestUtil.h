// SPDX-License-Identifier: Apache-2.0
// Helpers shared by the frontend unit tests: turning llvm::Expected/Error into
// values or message strings that gtest can compare.

#ifndef MXC_TEST_FRONTEND_TESTUTIL_H
#define MXC_TEST_FRONTEND_TESTUTIL_H

#include "llvm/Support/Error.h"

#include <gtest/gtest.h>

#include <string>

namespace mxc::test {

/// The message of `result`'s error, or "<success>" (and a test failure) if it
/// succeeded.
template <typename T> std::string errorOf(llvm::Expected<T> result) {
  if (result) {
    ADD_FAILURE() << "expected an error, got success";
    return "<success>";
  }
  return llvm::toString(result.takeError());
}

inline std::string errorOf(llvm::Error error) {
  if (!error) {
    ADD_FAILURE() << "expected an error, got success";
    return "<success>";
  }
  return llvm::toString(std::move(error));
}

/// The value of `result`; a fatal test failure showing the error otherwise.
#define MXC_ASSERT_OK_AND_ASSIGN(lhs, expr)                                    \
  auto lhs##OrErr = (expr);                                                    \
  ASSERT_TRUE(bool(lhs##OrErr)) << llvm::toString(lhs##OrErr.takeError());     \
  auto &lhs = *lhs##OrErr

/// Path of a file under ../shared/testdata.
inline std::string testDataPath(const std::string &relative) {
  return std::string(MXC_TESTDATA_DIR) + "/" + relative;
}

} // namespace mxc::test

#endif // MXC_TEST_FRONTEND_TESTUTIL_H
