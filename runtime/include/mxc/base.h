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

namespace mx {

using Shape = std::vector<int64_t>;

class Error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

} // namespace mx

#endif // MXC_BASE_H
