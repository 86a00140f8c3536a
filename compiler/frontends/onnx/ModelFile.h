// SPDX-License-Identifier: Apache-2.0
// The ONNX model file with its large initializers left where they are
// (see ModelFile.cpp): what protobuf then parses is small.
#ifndef MXC_COMPILER_FRONTENDS_ONNX_MODELFILE_H
#define MXC_COMPILER_FRONTENDS_ONNX_MODELFILE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <onnx/onnx_pb.h>

#include <optional>
#include <string>

namespace mxc::onnx {

/// The serialized ModelProto at `path`, its graph's initializers whose
/// raw_data holds 1 MiB or more rewritten as external data at their own
/// offsets in `path` (location: its file name, beside the model). nullopt
/// when the file cannot be mapped or its wire format is malformed: then
/// parse it whole, which reports the error.
std::optional<std::string> modelWithoutLargeInitializers(llvm::StringRef path);

/// Writes `model` to `path` (through a temporary file renamed over it, so
/// that no half-written model is left); `what` names it in errors.
llvm::Error writeModelFile(const ::onnx::ModelProto &model,
                           llvm::StringRef path, llvm::StringRef what);

} // namespace mxc::onnx

#endif // MXC_COMPILER_FRONTENDS_ONNX_MODELFILE_H
