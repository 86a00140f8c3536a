// SPDX-License-Identifier: Apache-2.0
//
// What the C++ API tests share: the message of the mx::Error a call throws,
// so that a test asserts what the message names.

#ifndef MXC_TEST_API_ERROROF_H
#define MXC_TEST_API_ERROROF_H

#include "mxc/base.h"

#include <string>

/// The message of the mx::Error that fn() throws, or "(no error)".
template <typename Fn> std::string errorOf(Fn fn) {
  try {
    fn();
  } catch (const mx::Error &e) {
    return e.what();
  }
  return "(no error)";
}

#endif // MXC_TEST_API_ERROROF_H
