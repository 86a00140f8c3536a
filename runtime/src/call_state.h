// SPDX-License-Identifier: Apache-2.0
//
// The state of one instance call that compiled code reaches through the
// runtime's string functions (mxrt/kernels.h): an arena for the strings it
// makes and the first conversion error. Not installed.
#ifndef MXRT_SRC_CALL_STATE_H
#define MXRT_SRC_CALL_STATE_H

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mxrt {

/// Bump allocator for NUL-terminated strings; reset() keeps the first block
/// so that steady calls do not allocate.
class StringArena {
public:
  /// A copy of text[0, size) plus a NUL, valid until reset().
  const char *copy(const char *text, size_t size);
  void reset();

private:
  std::vector<std::unique_ptr<char[]>> blocks;
  size_t used = 0, capacity = 0;
};

struct CallState {
  StringArena strings;
  /// The first error of the call ("" when none).
  std::string error;
  /// The instance's output callback (mxrt_instance_set_output_callback),
  /// its argument, and the function being called.
  void (*outputReady)(void *arg, int32_t function, int32_t output) = nullptr;
  void *outputArg = nullptr;
  int32_t function = 0;

  /// Makes `state` the calling thread's current call until destruction.
  class Scope {
  public:
    explicit Scope(CallState *state);
    ~Scope();
    Scope(const Scope &) = delete;
    Scope &operator=(const Scope &) = delete;

  private:
    CallState *previous;
  };
};

} // namespace mxrt

#endif // MXRT_SRC_CALL_STATE_H
