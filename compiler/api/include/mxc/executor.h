// SPDX-License-Identifier: Apache-2.0
//
// mx::Executor: a Symbol bound to input shapes and compiled in-process by
// the mxc pipeline (the same passes and kernels as `mxc --train`) into a
// training library that libmxrt loads; Forward, Backward (the gradient
// pass's `grad`), the outputs, gradients and parameters as NDArrays. Compiled
// libraries are cached by graph, shapes and options, in memory and, when
// asked, on disk.

#ifndef MXC_EXECUTOR_H
#define MXC_EXECUTOR_H

#include "mxc/ndarray.h"
#include "mxc/symbol.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace mx {

struct ExecutorOptions {
  /// Threads the compiled code runs on.
  int32_t threads = 1;
  /// The parameters' initial values (MXNet's conventions: weights uniform
  /// from this seed, biases and betas 0, gammas 1), unless `params` names
  /// an MXNet .params file to start from.
  uint64_t seed = 0;
  std::string params = {};
  /// A loss head for a symbol that ends at its outputs (softmax-ce, l2,
  /// l1, sigmoid-bce), as `mxc --train --loss`.
  std::string loss = {};
  /// A folder for compiled libraries, reused across processes (empty:
  /// in memory only, in a temporary folder removed at exit).
  std::string cacheDir = {};
};

class Executor {
public:
  /// Compiles `symbol` for `inputs` (the data; labels' shapes are inferred
  /// unless given), or takes the compiled library from the cache.
  Executor(const Symbol &symbol, const std::map<std::string, Shape> &inputs,
           const ExecutorOptions &options = {});
  ~Executor();
  Executor(Executor &&) noexcept;
  Executor &operator=(Executor &&) noexcept;

  /// Inputs (data and labels), outputs and parameters by name, in the
  /// compiled library's order.
  std::vector<std::string> InputNames() const;
  std::vector<std::string> OutputNames() const;
  std::vector<std::string> ParamNames() const;

  /// The array an input is read from (write into it, or replace it with
  /// an array of its shape).
  NDArray &Input(const std::string &name);
  void SetInput(const std::string &name, const NDArray &value);

  /// The outputs with the current parameters (inference: Dropout off,
  /// BatchNorm on its moving statistics).
  void Forward();
  /// Forward in training mode and the gradient of every learned parameter:
  /// as MXNet's executors give it, of the loss heads' losses summed over
  /// the batch (SoftmaxOutput: the cross entropy's sum; an optimizer
  /// scales its step by 1 / batch, as MXNet's Module does). Throws for a
  /// symbol without parameters (every variable an input): its library is
  /// compiled for inference only.
  void Backward();
  const std::vector<NDArray> &Outputs() const;
  const NDArray &Gradient(const std::string &param) const;

  /// A parameter in place: what the next Forward / Backward reads, so
  /// `exec.Param("fc1_weight") -= lr * exec.Gradient("fc1_weight")` is an
  /// update (the array keeps the executor's library alive; Forward,
  /// Backward, SetParam and SaveParams first wait for the NDArray
  /// operations pending on it). SetParam copies values in.
  NDArray Param(const std::string &name) const;
  void SetParam(const std::string &name, const NDArray &value);
  /// Every parameter as an MXNet .params file ("arg:" / "aux:" names).
  void SaveParams(const std::string &path) const;

  /// MXNet's Reshape: an executor of the same symbol and options for new
  /// input shapes (a batch of another size), its parameters this one's
  /// current values, copied. The library is compiled for those shapes, or
  /// taken from the cache (one compile per batch size seen). Throws naming
  /// the parameter when the new shapes change a parameter's shape.
  Executor Reshape(const std::map<std::string, Shape> &inputs) const;
  /// Whether this executor's library came from a cache (this process's,
  /// or options.cacheDir's) rather than a new compile.
  bool cached() const;

  struct Impl;

private:
  std::unique_ptr<Impl> impl_;
};

} // namespace mx

#endif // MXC_EXECUTOR_H
