// SPDX-License-Identifier: Apache-2.0
//
// Every MXNet operator mxc implements, imperatively on NDArrays:
//   mx::NDArray y = mx::nd::Convolution(x, w, b, {.kernel = {3, 3},
//                                                 .num_filter = 8});
// with the semantics of its compiled form (inference: Dropout is the
// identity, BatchNorm uses its moving statistics). The functions are
// generated from the mx dialect's definitions, as the symbol API's are, and
// take the same `sym::<Op>Args`. Each call builds the one-node symbol and
// runs it through nd::Invoke: compiled in-process by the mxc pipeline on
// first use of an operator, attributes and shapes (then cached in memory),
// and pushed to the NDArray engine (mxc/ndarray.h) reading its operands and
// writing its outputs, so calls return at once and order by their arrays.
// These need the compiler (libMXCExecutor, which links LLVM); NDArray's own
// arithmetic, copies, updates, engine and .params files need libmxrt only.

#ifndef MXC_IMPERATIVE_H
#define MXC_IMPERATIVE_H

#include "mxc/ndarray.h"
#include "mxc/symbol.h"

#include <map>
#include <string>
#include <vector>

namespace mx {
namespace nd {

/// Runs `symbol` on `arrays` (its arguments and auxiliary states by name):
/// the outputs, in ListOutputs order. An argument left out is an error
/// unless the compiled form drops it (SoftmaxOutput's label).
std::vector<NDArray> Invoke(const Symbol &symbol,
                            const std::map<std::string, NDArray> &arrays);

namespace detail {
/// A generated function's operands: variables named after them, and the
/// arrays behind the variables.
class Operands {
public:
  explicit Operands(const char *op) : op_(op) {}
  /// A variable for `array`; for an empty array, no symbol (a parameter
  /// operand the attributes leave out).
  Symbol add(const std::string &name, const NDArray &array);
  std::vector<Symbol> add(const std::string &name,
                          const std::vector<NDArray> &arrays);
  std::vector<NDArray> run(const Symbol &symbol) const;

private:
  NameScope names_; // nodes named from 0 each call: one cache entry
  const char *op_;
  std::map<std::string, NDArray> arrays_;
};
} // namespace detail

#include "mxc/nd_ops.h.inc"

} // namespace nd
} // namespace mx

#endif // MXC_IMPERATIVE_H
