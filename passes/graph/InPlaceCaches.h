// SPDX-License-Identifier: Apache-2.0
// Key/value caches updated in place (mxc --kv-cache=in-place): a decoder
// exported with its cache as inputs and outputs (past -> Concat -> present)
// takes each cache as one buffer of a fixed capacity that the step appends
// to, and the cache's filled length as an input of its own
// (docs/transformers.md).
#ifndef MXC_PASSES_GRAPH_INPLACECACHES_H
#define MXC_PASSES_GRAPH_INPLACECACHES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <string>
#include <vector>

namespace mxc {

/// Argument attribute of a cache: read and written in place (never marked
/// read only).
inline constexpr llvm::StringLiteral kCacheArgAttr = "mxc.cache";
/// Argument attribute of a length input (tensor<0x?xi8>: its axis 1 is the
/// filled length; the caller passes the length as an int64 scalar).
inline constexpr llvm::StringLiteral kLengthArgAttr = "mxc.length";
/// Result attributes of the extra results the rewrite returns until
/// mxc-cache-results drops them: the updated cache (of argument N) and a
/// tensor<0x?xi8> whose axis 1 is the cache's length after the step.
inline constexpr llvm::StringLiteral kCacheOfAttr = "mxc.cache_of";
inline constexpr llvm::StringLiteral kCacheFillOfAttr = "mxc.cache_fill_of";
/// Function attribute mxc-cache-results leaves: pairs (argument, model
/// dimension) of each cache's length after the step.
inline constexpr llvm::StringLiteral kCacheFillsAttr = "mxc.cache_fills";

/// One cache made in place.
struct InPlaceCache {
  unsigned input;   ///< its argument (and input) index, after the rewrite
  unsigned output;  ///< the output that returned the appended cache, before
  int64_t axis;     ///< the axis appended along
  int64_t capacity; ///< its extent on that axis now
  int64_t group;    ///< the length input that gives its filled extent
};

struct InPlaceCaches {
  std::vector<InPlaceCache> caches;
  /// The length inputs added, one per group, in order: each the group it
  /// stands for. They are arguments numInputs, numInputs + 1, ...
  std::vector<int64_t> lengths;
};

/// What the caller says about a cache candidate (input `arg`, dynamic on
/// `axis`): its capacity (or an empty `error`) and its group (the caches of
/// one group share a length input: the same model dimension).
struct CacheLayout {
  int64_t capacity = -1;
  int64_t group = 0;
  std::string error;
};

/// Rewrites `fn` (mx ops; its first `numInputs` arguments the model's
/// inputs): every input appended to along a dynamic axis by an mx.Concat of
/// two operands whose result an output returns becomes a cache of
/// `layout`'s capacity on that axis, written in place from the filled
/// length (a new length argument per group, after the inputs); the output
/// goes and the Concat's readers read the filled part. Fails, leaving `fn`
/// as it was and saying nothing, when `layout` reports an error or no
/// capacity (the caller knows why). Finding no cache is not an
/// error (the result is empty).
mlir::FailureOr<InPlaceCaches> makeCachesInPlace(
    mlir::func::FuncOp fn, unsigned numInputs,
    llvm::function_ref<CacheLayout(unsigned arg, int64_t axis)> layout);

} // namespace mxc

#endif // MXC_PASSES_GRAPH_INPLACECACHES_H
