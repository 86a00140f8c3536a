// SPDX-License-Identifier: Apache-2.0
//
// The in-process compile cache that mx::Executor and the imperative
// operators (mx::nd) share (Executor.cpp): a Symbol and its input shapes
// compiled by mxc::compile into a library libmxrt loads, keyed by graph,
// shapes, options and the host CPU.

#ifndef MXC_API_JIT_H
#define MXC_API_JIT_H

#include "mxc/executor.h"
#include "mxrt/mxrt.h"

#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace mx::detail {

/// A loaded library; `instance` and `mutex` serve the imperative
/// operators, which run one call at a time on a shared instance.
struct Compiled {
  mxrt_model *model = nullptr;
  std::mutex mutex;
  mxrt_instance *instance = nullptr;
  ~Compiled();
};

/// The library for `symbol` and `inputs` (a training library, or with
/// `train` false an inference one whose variables are all inputs): one this
/// process holds already, one in options.cacheDir, or a new one (`reused`:
/// not new). Errors start with `what`.
std::shared_ptr<Compiled> compiled(const Symbol &symbol,
                                   const std::map<std::string, Shape> &inputs,
                                   const ExecutorOptions &options, bool train,
                                   const std::string &what, bool &reused);

/// Throws mx::Error with `what` and libmxrt's last error.
[[noreturn]] void failRuntime(const std::string &what);

} // namespace mx::detail

#endif // MXC_API_JIT_H
