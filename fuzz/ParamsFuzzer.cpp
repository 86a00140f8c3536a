// SPDX-License-Identifier: Apache-2.0
// Fuzzes the MXNet .params reader (parseParams: magic numbers, list
// lengths, NDArray headers of every format version, storage types, shapes,
// dtypes, names). What parses converts to float32 where its dtype allows,
// and must write and read back to the same arrays.
#include "compiler/frontends/mxnet/Params.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>

using namespace mxc::mxnet;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef bytes(reinterpret_cast<const char *>(data), size);
  auto arrays = parseParams(bytes, "fuzz.params");
  if (!arrays) {
    llvm::consumeError(arrays.takeError());
    return 0;
  }
  for (const NamedArray &array : *arrays) {
    (void)array.numElements();
    (void)array.savedName();
    auto floats = array.toFloat32();
    if (!floats)
      llvm::consumeError(floats.takeError());
  }
  std::string saved;
  llvm::raw_string_ostream os(saved);
  if (llvm::Error err = writeParams(os, *arrays)) {
    llvm::consumeError(std::move(err));
    return 0;
  }
  auto again = parseParams(saved, "fuzz-resaved.params");
  if (!again || again->size() != arrays->size()) {
    if (!again)
      llvm::errs() << llvm::toString(again.takeError()) << "\n";
    std::fprintf(stderr, "parsed arrays do not write and read back\n");
    std::abort();
  }
  for (size_t i = 0; i < arrays->size(); ++i) {
    const NamedArray &a = (*arrays)[i], &b = (*again)[i];
    if (a.name != b.name || a.kind != b.kind || a.dtype != b.dtype ||
        a.shape != b.shape || a.data != b.data || a.isNone != b.isNone) {
      std::fprintf(stderr, "array %zu changed in a write/read round trip\n", i);
      std::abort();
    }
  }
  return 0;
}
