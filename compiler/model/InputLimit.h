// SPDX-License-Identifier: Apache-2.0
// MXC_MAX_INPUT_BYTES: a cap, set by whoever runs mxc, on the bytes mxc
// reads from one untrusted input file (a symbol JSON, a .params file, an
// ONNX model) and from one ONNX model's external data in all. Unset, the
// only bound is what the files hold (every claim in them is checked against
// their own size before anything is allocated). libmxrt reads the same
// variable for the .npy and .params files it loads (runtime/src/status.cpp).
#ifndef MXC_COMPILER_MODEL_INPUTLIMIT_H
#define MXC_COMPILER_MODEL_INPUTLIMIT_H

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <cstdlib>
#include <optional>

namespace mxc {

inline constexpr const char *kInputLimitVariable = "MXC_MAX_INPUT_BYTES";

/// The cap, if MXC_MAX_INPUT_BYTES is set: a byte count with an optional
/// K, M, G or T suffix (powers of 1024).
inline llvm::Expected<std::optional<uint64_t>> inputByteLimit() {
  const char *text = std::getenv(kInputLimitVariable);
  if (!text || !*text)
    return std::nullopt;
  llvm::StringRef s(text);
  uint64_t scale = 1;
  switch (s.empty() ? '\0' : s.back()) {
  case 'K':
  case 'k':
    scale = uint64_t(1) << 10;
    break;
  case 'M':
  case 'm':
    scale = uint64_t(1) << 20;
    break;
  case 'G':
  case 'g':
    scale = uint64_t(1) << 30;
    break;
  case 'T':
  case 't':
    scale = uint64_t(1) << 40;
    break;
  }
  if (scale != 1)
    s = s.drop_back();
  uint64_t n;
  if (s.getAsInteger(10, n) || n > UINT64_MAX / scale)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        llvm::Twine(kInputLimitVariable) + "='" + text +
            "' is not a byte count (a number with an optional K, M, G or T)");
  return n * scale;
}

/// Fails, naming `path`, when `bytes` (of `what`: "" for the file itself)
/// exceed the cap.
inline llvm::Error checkInputBytes(llvm::StringRef path, uint64_t bytes,
                                   llvm::StringRef what = "") {
  auto limit = inputByteLimit();
  if (!limit)
    return limit.takeError();
  if (!*limit || bytes <= **limit)
    return llvm::Error::success();
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      "'" + path + "': " + (what.empty() ? "" : what + " ") + "holds " +
          llvm::Twine(bytes) + " bytes, more than " + kInputLimitVariable +
          "=" + std::getenv(kInputLimitVariable) + " allows");
}

} // namespace mxc

#endif // MXC_COMPILER_MODEL_INPUTLIMIT_H
