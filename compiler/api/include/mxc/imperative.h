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
#include <optional>
#include <string>
#include <vector>

namespace mx {
namespace nd {

/// Runs `symbol` on `arrays` (its arguments and auxiliary states by name):
/// the outputs, in ListOutputs order. An argument left out is an error
/// unless the compiled form drops it (SoftmaxOutput's label).
std::vector<NDArray> Invoke(const Symbol &symbol,
                            const std::map<std::string, NDArray> &arrays);

/// MXNet's imperative invoke by name: operator `op` (its MXNet name, as
/// in symbol JSON) on `operands` in its operand order (data, parameters,
/// auxiliary states; trailing ones the attributes leave out may be
/// omitted), attributes written as MXNet writes them ("(3, 3)", "True",
/// "relu"). Runs the generated function of that name; the outputs.
std::vector<NDArray> Call(const std::string &op,
                          const std::vector<NDArray> &operands,
                          const std::map<std::string, std::string> &attrs = {});

namespace detail {
using ByName =
    std::vector<NDArray> (*)(const std::vector<NDArray> &operands,
                             const std::map<std::string, std::string> &attrs);
/// Every generated function, by operator name (for Call).
const std::map<std::string, ByName> &byName();

/// Reads attribute text into a generated function's Args fields.
class Attributes {
public:
  Attributes(const char *op, const std::map<std::string, std::string> &text)
      : op_(op), text_(text) {}
  void get(const char *name, int64_t &out);
  void get(const char *name, double &out);
  void get(const char *name, bool &out);
  void get(const char *name, std::string &out);
  void get(const char *name, std::vector<int64_t> &out);
  template <typename T> void get(const char *name, std::optional<T> &out) {
    if (!text_.count(name))
      return;
    T value{};
    get(name, value);
    out = value;
  }
  /// Throws for an attribute no field took (but MXNet's tuning hints).
  void finish() const;

private:
  const std::string *find(const char *name);
  const char *op_;
  const std::map<std::string, std::string> &text_;
  std::vector<std::string> used_;
};

/// Operand i, or an empty array past the end.
inline NDArray operand(const std::vector<NDArray> &in, size_t i) {
  return i < in.size() ? in[i] : NDArray();
}
/// Operands from i on (a variadic operand).
inline std::vector<NDArray> rest(const std::vector<NDArray> &in, size_t i) {
  return i < in.size() ? std::vector<NDArray>(in.begin() + i, in.end())
                       : std::vector<NDArray>();
}
inline std::vector<NDArray> results(const NDArray &one) { return {one}; }
inline std::vector<NDArray> results(std::vector<NDArray> all) { return all; }

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
