// SPDX-License-Identifier: Apache-2.0
// mxc-merge-gpu-objects (see MergeGpuObjectsPass in Passes.td): the fat
// binaries gpu-module-to-binary makes for each target of a kernel merged
// into one, so that a library embeds every architecture's machine code
// and PTX (gpu.select_object embeds one object per kernel).
#include "passes/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "llvm/Support/Endian.h"

namespace mxc {
#define GEN_PASS_DEF_MERGEGPUOBJECTSPASS
#include "passes/Passes.h.inc"
} // namespace mxc

using namespace mlir;

namespace {

/// A CUDA fat binary: a 16-byte header (magic 0xBA55ED50, version 1, its
/// size, the size of what follows), then entries (a header each, with its
/// size at byte 4 and its payload's at byte 8, then the payload).
constexpr uint32_t kFatbinMagic = 0xBA55ED50;

/// The entries of fat binary `bytes` (all of them, whole), or failure.
FailureOr<StringRef> fatbinEntries(StringRef bytes) {
  using namespace llvm::support;
  if (bytes.size() < 16 || endian::read32le(bytes.data()) != kFatbinMagic ||
      endian::read16le(bytes.data() + 4) != 1)
    return failure();
  uint16_t header = endian::read16le(bytes.data() + 6);
  uint64_t size = endian::read64le(bytes.data() + 8);
  if (header < 16 || header > bytes.size() || size > bytes.size() - header)
    return failure();
  return bytes.substr(header, size);
}

struct MergeGpuObjectsPass
    : mxc::impl::MergeGpuObjectsPassBase<MergeGpuObjectsPass> {
  void runOnOperation() override {
    getOperation().walk([&](gpu::BinaryOp binary) {
      ArrayRef<Attribute> objects = binary.getObjects().getValue();
      if (objects.size() < 2)
        return;
      std::string entries;
      for (Attribute a : objects) {
        auto object = cast<gpu::ObjectAttr>(a);
        FailureOr<StringRef> body = failure();
        if (object.getFormat() == gpu::CompilationTarget::Fatbin)
          body = fatbinEntries(object.getObject().getValue());
        if (failed(body)) {
          binary.emitError("mxc-merge-gpu-objects: an object of ")
              << binary.getSymName() << " is not a CUDA fat binary";
          return signalPassFailure();
        }
        entries += *body;
      }
      std::string merged(16, '\0');
      using namespace llvm::support;
      endian::write32le(merged.data(), kFatbinMagic);
      endian::write16le(merged.data() + 4, 1);
      endian::write16le(merged.data() + 6, 16);
      endian::write64le(merged.data() + 8, entries.size());
      merged += entries;
      auto first = cast<gpu::ObjectAttr>(objects.front());
      auto one = gpu::ObjectAttr::get(
          &getContext(), first.getTarget(), gpu::CompilationTarget::Fatbin,
          StringAttr::get(&getContext(), merged), first.getProperties(),
          first.getKernels());
      binary.setObjectsAttr(ArrayAttr::get(&getContext(), {one}));
    });
  }
};

} // namespace
