// SPDX-License-Identifier: Apache-2.0
//
// The checks every call of a compiled function makes on its buffers, and
// the guard that keeps a second thread out of an instance in a call
// (docs/security.md). Used by model.cpp's two call paths (tensors and raw
// buffers).
#ifndef MXRT_CALL_CHECKS_H
#define MXRT_CALL_CHECKS_H

#include "internal.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <optional>
#include <string>

namespace mxrt {

/// Bytes of a tensor of `desc`'s dtype and shape, its dynamic extents the
/// values of their dimensions in `dims` (the descriptor's sizes were checked
/// when the model was opened; the dimensions' values were bound, but their
/// product may overflow, when the most bytes stand for it).
inline uint64_t bytesOf(const mxrt_tensor_desc &desc, const int64_t *dims) {
  uint64_t bytes = mxrt_dtype_size(static_cast<mxrt_dtype>(desc.dtype));
  for (int32_t d = 0; d < desc.ndim; ++d) {
    int64_t extent = desc.shape[d];
    if (extent < 0)
      extent = dims[MXRT_DIM_INDEX(extent)];
    if (__builtin_mul_overflow(bytes, static_cast<uint64_t>(extent), &bytes))
      bytes = UINT64_MAX;
  }
  return bytes;
}

/// Checks the buffers of one call of `fn` (input(i), output(i)): each is
/// aligned to its element (at most 8 bytes), and no output overlaps an input
/// or another output (compiled code reads inputs after writing outputs and
/// keeps intermediate values in outputs, so either would give wrong
/// results). `dims` holds the values of the dimensions fn's shapes have
/// (DimBinding). `callee()` names the call in messages; nothing is
/// allocated unless a check fails.
template <typename Callee, typename Input, typename Output>
mxrt_status checkBuffers(const mxrt_function_desc &fn, const int64_t *dims,
                         Callee callee, Input input, Output output) {
  auto misaligned = [](const void *data, const mxrt_tensor_desc &desc) {
    uint64_t align = std::min<uint64_t>(
        mxrt_dtype_size(static_cast<mxrt_dtype>(desc.dtype)), 8);
    return align > 1 && reinterpret_cast<uintptr_t>(data) % align != 0;
  };
  for (int64_t i = 0; i < fn.num_inputs; ++i)
    if (misaligned(input(i), fn.inputs[i]))
      return fail(MXRT_INVALID_ARGUMENT,
                  "%s: input '%s' at %p is not aligned to its %s elements",
                  callee().c_str(), fn.inputs[i].name, input(i),
                  mxrt_dtype_name(static_cast<mxrt_dtype>(fn.inputs[i].dtype)));
  auto overlap = [](const void *a, uint64_t aBytes, const void *b,
                    uint64_t bBytes) {
    auto x = reinterpret_cast<uintptr_t>(a), y = reinterpret_cast<uintptr_t>(b);
    return aBytes && bBytes && x < y + bBytes && y < x + aBytes;
  };
  for (int64_t o = 0; o < fn.num_outputs; ++o) {
    const mxrt_tensor_desc &out = fn.outputs[o];
    const void *data = output(o);
    uint64_t bytes = bytesOf(out, dims);
    if (misaligned(data, out))
      return fail(MXRT_INVALID_ARGUMENT,
                  "%s: output '%s' at %p is not aligned to its %s elements",
                  callee().c_str(), out.name, data,
                  mxrt_dtype_name(static_cast<mxrt_dtype>(out.dtype)));
    for (int64_t i = 0; i < fn.num_inputs; ++i)
      if (overlap(data, bytes, input(i), bytesOf(fn.inputs[i], dims)))
        return fail(MXRT_INVALID_ARGUMENT,
                    "%s: output '%s' overlaps input '%s' (outputs must not "
                    "share memory with inputs or other outputs)",
                    callee().c_str(), out.name, fn.inputs[i].name);
    for (int64_t other = 0; other < o; ++other)
      if (overlap(data, bytes, output(other), bytesOf(fn.outputs[other], dims)))
        return fail(MXRT_INVALID_ARGUMENT,
                    "%s: output '%s' overlaps output '%s' (outputs must not "
                    "share memory with inputs or other outputs)",
                    callee().c_str(), out.name, fn.outputs[other].name);
  }
  return MXRT_OK;
}

/// Marks the instance as in a call for the guard's lifetime; `entered()` is
/// false when another thread is in one (the instance is left to it).
class CallGuard {
public:
  explicit CallGuard(mxrt_instance *instance)
      : flag(instance->inCall),
        ok(!flag.exchange(true, std::memory_order_acquire)) {}
  ~CallGuard() {
    if (ok)
      flag.store(false, std::memory_order_release);
  }
  bool entered() const { return ok; }

private:
  std::atomic<bool> &flag;
  bool ok;
};

inline mxrt_status failBusy(const char *callee) {
  return fail(MXRT_INVALID_ARGUMENT,
              "%s: the instance is in a call on another thread (one thread "
              "uses an instance at a time: create an instance per thread)",
              callee);
}

/// What both call paths do once their arguments are checked: checks the
/// buffers (`input(i)`, `output(i)`; `dims` as checkBuffers), enters the
/// instance (`guard`, which the caller holds for the call) and points
/// function `function`'s input and output slots at the buffers (CUDA
/// instances copy them instead).
template <typename Callee, typename Input, typename Output>
mxrt_status enterCall(mxrt_instance *instance, int32_t function,
                      const mxrt_function_desc &fn, const int64_t *dims,
                      Callee callee, Input input, Output output,
                      std::optional<CallGuard> &guard) {
  if (mxrt_status status = checkBuffers(fn, dims, callee, input, output))
    return status;
  guard.emplace(instance);
  if (!guard->entered())
    return failBusy(callee().c_str());
  if (instance->model->cuda())
    return MXRT_OK;
  void **buffers = instance->buffers[function].data();
  for (int64_t i = 0; i < fn.num_inputs; ++i)
    buffers[i] = const_cast<void *>(static_cast<const void *>(input(i)));
  for (int64_t i = 0; i < fn.num_outputs; ++i)
    buffers[fn.num_inputs + i] = output(i);
  return MXRT_OK;
}

} // namespace mxrt

#endif // MXRT_CALL_CHECKS_H
