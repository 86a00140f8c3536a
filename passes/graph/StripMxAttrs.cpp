// SPDX-License-Identifier: Apache-2.0
// Drops the frontends' argument and result attributes (mx.name, mx.param,
// ...) once the pipeline is done with them: LLVM translation would warn
// about each unknown attribute, printing the whole function every time.
#include "passes/Passes.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mxc {
#define GEN_PASS_DEF_STRIPMXATTRSPASS
#include "passes/Passes.h.inc"
} // namespace mxc

using namespace mlir;

namespace {

/// `attrs` without the mx.* entries.
DictionaryAttr withoutMxAttrs(DictionaryAttr attrs) {
  SmallVector<NamedAttribute> kept;
  for (NamedAttribute a : attrs)
    if (!a.getName().getValue().starts_with("mx."))
      kept.push_back(a);
  return DictionaryAttr::get(attrs.getContext(), kept);
}

struct StripMxAttrsPass : mxc::impl::StripMxAttrsPassBase<StripMxAttrsPass> {
  void runOnOperation() override {
    getOperation().walk([](FunctionOpInterface fn) {
      for (unsigned i = 0; i < fn.getNumArguments(); ++i)
        if (DictionaryAttr attrs = fn.getArgAttrDict(i))
          fn.setArgAttrs(i, withoutMxAttrs(attrs));
      for (unsigned i = 0; i < fn.getNumResults(); ++i)
        if (DictionaryAttr attrs = fn.getResultAttrDict(i))
          fn.setResultAttrs(i, withoutMxAttrs(attrs));
    });
  }
};

} // namespace
