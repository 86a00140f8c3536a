// SPDX-License-Identifier: Apache-2.0
//
// What the C++ host API's headers (mxc/symbol.h, mxc/ndarray.h,
// mxc/executor.h) share: shapes, and the one exception type they throw,
// whose message names the node, array or file and the reason.

#ifndef MXC_BASE_H
#define MXC_BASE_H

#include <cstdint>
#include <stdexcept>
#include <vector>

/// What must be one object in the whole process however many libraries
/// include these headers (a program, libmxc, a Python extension, each
/// perhaps built with -fvisibility=hidden): the exception type, which
/// `catch` matches by identity, and the NDArray engine.
#if defined(__GNUC__)
#define MXC_SHARED __attribute__((visibility("default")))
#else
#define MXC_SHARED
#endif

namespace mx {

using Shape = std::vector<int64_t>;

class MXC_SHARED Error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

} // namespace mx

#endif // MXC_BASE_H
