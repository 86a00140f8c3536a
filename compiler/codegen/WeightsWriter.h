// SPDX-License-Identifier: Apache-2.0
// Writes a model's weights to disk straight from its parameters' bytes, so
// that a large model's weights never exist as one blob, an LLVM constant or an
// object file in memory while it compiles (docs/compile-memory.md): into the
// place a shared library's link reserved for them, or as an ELF object member
// of a static archive.
#ifndef MXC_COMPILER_CODEGEN_WEIGHTSWRITER_H
#define MXC_COMPILER_CODEGEN_WEIGHTSWRITER_H

#include "compiler/model/ModelSpec.h"

#include "llvm/Support/Error.h"

#include <string>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace mxc {

/// The symbol at the start of the weights (`<name>_weights`, 64-byte aligned,
/// hidden): the reflective table's `weights` points at it.
std::string weightsSymbol(const ModelSpec &spec);

/// An ld.lld linker script (it adds to the default layout) that reserves
/// spec.weightsSize bytes for the weights in a read-only, page-aligned
/// section (its file offset is then block-aligned for direct writes) before
/// `.rodata` (so that `.rodata` and `.text` stay within reach of each
/// other's PC-relative references whatever the weights' size) and defines
/// weightsSymbol() there. ld.lld leaves the reserved
/// bytes unwritten (a hole in the file), so linking touches none of them;
/// fillReservedWeights() writes them afterwards.
std::string weightsLinkerScript(const ModelSpec &spec);

/// Writes every parameter into the section that weightsLinkerScript()
/// reserved in the linked file at `path`, at its offset, zeros between, in
/// direct writes for large weights (DirectFileStream).
llvm::Error fillReservedWeights(const std::string &path, const ModelSpec &spec);

/// MXRT_WEIGHTS_HASH of runtime/include/mxrt/model_abi.h: identifies the
/// weights, so that a library refuses a weights file of another compile.
uint64_t weightsHash(const ModelSpec &spec);

/// Where the weights file of `spec` (mxc --weights=file) goes: beside the
/// library at `libraryPath`.
std::string weightsFilePath(const std::string &libraryPath,
                            const ModelSpec &spec);

/// Writes the weights file of spec.weightsFile (mxc --weights=file) to
/// `path`: the header, then the weights laid out as the embedded blob
/// (direct writes, DirectFileStream), atomically.
llvm::Error writeWeightsFile(const std::string &path, const ModelSpec &spec);

/// Writes a GNU static archive to `os`: `codeObject` as member `<name>.o`
/// and an ELF relocatable object holding the weights (one 64-byte aligned
/// read-only section and weightsSymbol()) as `<name>_weights.o`, streamed
/// from the parameters, with the symbol index linkers look members up in.
/// The weights object copies its ELF class, byte order and machine from
/// `codeObject`, which must be ELF64 little-endian.
llvm::Error writeModelArchive(llvm::raw_ostream &os, llvm::StringRef codeObject,
                              const ModelSpec &spec);

} // namespace mxc

#endif // MXC_COMPILER_CODEGEN_WEIGHTSWRITER_H
