// SPDX-License-Identifier: Apache-2.0
// A model's typed C API: how its tensors appear in it, shared by the code
// that builds the API (CApi.cpp, called by Codegen.cpp) and the header that
// declares it (Header.cpp), so that the two cannot disagree on a name or a
// parameter's type.
#ifndef MXC_COMPILER_CODEGEN_CAPI_H
#define MXC_COMPILER_CODEGEN_CAPI_H

#include "compiler/model/ModelSpec.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Module.h"

#include <string>

namespace mxc {

/// A C identifier made from a tensor name.
std::string cIdentifier(llvm::StringRef name);

/// Whether the typed API takes input `t` by value (a rank-0 number, the
/// learning rate) rather than by pointer.
bool passedByValue(const TensorSpec &t);

/// The typed API: `<name>_create`, `<name>_run`, `<name>_release`, thin
/// calls into libmxrt with the model's descriptor.
void buildTypedApi(llvm::Module &m, const ModelSpec &spec,
                   llvm::GlobalVariable *descriptor);

} // namespace mxc

#endif // MXC_COMPILER_CODEGEN_CAPI_H
