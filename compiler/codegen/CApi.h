// SPDX-License-Identifier: Apache-2.0
// How a model's tensors appear in its typed C API, shared by the code that
// builds the API (Codegen.cpp) and the header that declares it (Header.cpp),
// so that the two cannot disagree on a name or a parameter's type.
#ifndef MXC_COMPILER_CODEGEN_CAPI_H
#define MXC_COMPILER_CODEGEN_CAPI_H

#include "compiler/model/ModelSpec.h"

#include "llvm/ADT/StringRef.h"

#include <string>

namespace mxc {

/// A C identifier made from a tensor name.
std::string cIdentifier(llvm::StringRef name);

/// Whether the typed API takes input `t` by value (a rank-0 number, the
/// learning rate) rather than by pointer.
bool passedByValue(const TensorSpec &t);

} // namespace mxc

#endif // MXC_COMPILER_CODEGEN_CAPI_H
