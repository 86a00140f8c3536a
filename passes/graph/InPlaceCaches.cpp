// SPDX-License-Identifier: Apache-2.0
// Key/value caches updated in place (InPlaceCaches.h; the passes
// mxc-in-place-caches and mxc-cache-results in Passes.td).
#include "passes/graph/InPlaceCaches.h"
#include "dialects/mx/MxDialect.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/BitVector.h"

namespace mxc {
#define GEN_PASS_DEF_INPLACECACHESPASS
#define GEN_PASS_DEF_CACHERESULTSPASS
#include "passes/Passes.h.inc"
} // namespace mxc

using namespace mlir;

namespace {

/// `source`'s extents as `want` has them: static where `want` is, read off
/// `source` elsewhere, and `axisSize` on `axis`.
SmallVector<OpFoldResult> sizesLike(OpBuilder &b, Location loc, Value source,
                                    RankedTensorType want, int64_t axis,
                                    OpFoldResult axisSize) {
  SmallVector<OpFoldResult> sizes;
  for (int64_t d = 0; d < want.getRank(); ++d) {
    if (d == axis)
      sizes.push_back(axisSize);
    else if (!want.isDynamicDim(d))
      sizes.push_back(b.getIndexAttr(want.getDimSize(d)));
    else
      sizes.push_back(tensor::DimOp::create(b, loc, source, d).getResult());
  }
  return sizes;
}

struct Candidate {
  unsigned arg;
  mxc::mx::ConcatOp concat;
  unsigned result;
  int64_t axis;
  mxc::CacheLayout layout;
};

} // namespace

FailureOr<mxc::InPlaceCaches> mxc::makeCachesInPlace(
    func::FuncOp fn, unsigned numInputs,
    llvm::function_ref<CacheLayout(unsigned arg, int64_t axis)> layout) {
  InPlaceCaches made;
  Block &body = fn.getBody().front();
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  SmallVector<Candidate> found;
  for (unsigned i = 0; i < numInputs && i < fn.getNumArguments(); ++i) {
    BlockArgument arg = fn.getArgument(i);
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!type)
      continue;
    for (Operation *user : arg.getUsers()) {
      auto concat = dyn_cast<mx::ConcatOp>(user);
      if (!concat || concat.getInputs().size() != 2 ||
          concat.getInputs()[0] != arg)
        continue;
      int64_t axis = concat.getDim() < 0 ? concat.getDim() + type.getRank()
                                         : concat.getDim();
      auto fresh = dyn_cast<RankedTensorType>(concat.getInputs()[1].getType());
      auto joined = dyn_cast<RankedTensorType>(concat.getType());
      if (axis < 0 || axis >= type.getRank() || !type.isDynamicDim(axis) ||
          !fresh || !joined || fresh.getRank() != type.getRank())
        continue;
      // The appended cache is an output, returned once.
      SmallVector<unsigned> returned;
      for (OpOperand &use : concat.getResult().getUses())
        if (use.getOwner() == ret)
          returned.push_back(use.getOperandNumber());
      if (returned.size() != 1)
        continue;
      CacheLayout l = layout(i, axis);
      if (!l.error.empty() || l.capacity < 0)
        return failure(); // the caller says why
      found.push_back({i, concat, returned[0], axis, l});
      break;
    }
  }
  if (found.empty())
    return made;

  MLIRContext *ctx = fn.getContext();
  Location loc = fn.getLoc();
  // One length argument per group, after the inputs.
  auto lengthType = RankedTensorType::get({0, ShapedType::kDynamic},
                                          IntegerType::get(ctx, 8));
  DenseMap<int64_t, unsigned> lengthArg;
  for (const Candidate &c : found) {
    if (lengthArg.count(c.layout.group))
      continue;
    unsigned at = numInputs + unsigned(made.lengths.size());
    NamedAttribute mark(StringAttr::get(ctx, kLengthArgAttr),
                        UnitAttr::get(ctx));
    if (failed(fn.insertArgument(at, lengthType,
                                 DictionaryAttr::get(ctx, {mark}), loc)))
      return failure();
    lengthArg[c.layout.group] = at;
    made.lengths.push_back(c.layout.group);
  }

  OpBuilder b(ctx);
  SmallVector<Value> extra;
  SmallVector<DictionaryAttr> extraAttrs;
  llvm::BitVector dropped(ret.getNumOperands());
  for (Candidate &c : found) {
    BlockArgument cache = fn.getArgument(c.arg);
    auto pastType = cast<RankedTensorType>(cache.getType());
    SmallVector<int64_t> shape(pastType.getShape());
    shape[c.axis] = c.layout.capacity;
    cache.setType(RankedTensorType::get(shape, pastType.getElementType()));
    fn.setArgAttr(c.arg, kCacheArgAttr, UnitAttr::get(ctx));

    // The past: the filled part of the cache, for whatever else read it
    // (the readers of before: the view itself may read the cache's other
    // dynamic extents).
    SmallVector<OpOperand *> readers(llvm::make_pointer_range(cache.getUses()));
    b.setInsertionPointToStart(&body);
    Value filled = tensor::DimOp::create(
        b, loc, fn.getArgument(lengthArg[c.layout.group]), 1);
    int64_t rank = pastType.getRank();
    SmallVector<OpFoldResult> zeros(rank, b.getIndexAttr(0)),
        ones(rank, b.getIndexAttr(1));
    auto past = tensor::ExtractSliceOp::create(
        b, loc, pastType, cache, zeros,
        sizesLike(b, loc, cache, pastType, c.axis, filled), ones);
    for (OpOperand *reader : readers)
      reader->set(past);

    // The step's rows written after it, and the Concat's readers reading
    // the cache up to them.
    b.setInsertionPoint(c.concat);
    Value fresh = c.concat.getInputs()[1];
    auto freshType = cast<RankedTensorType>(fresh.getType());
    OpFoldResult added =
        freshType.isDynamicDim(c.axis)
            ? OpFoldResult(tensor::DimOp::create(b, loc, fresh, c.axis))
            : OpFoldResult(b.getIndexAttr(freshType.getDimSize(c.axis)));
    SmallVector<OpFoldResult> at(zeros);
    at[c.axis] = filled;
    auto updated = tensor::InsertSliceOp::create(
        b, loc, fresh, cache, at,
        sizesLike(b, loc, fresh, freshType, c.axis, added), ones);
    Value total = arith::AddIOp::create(
        b, loc, filled, getValueOrCreateConstantIndexOp(b, loc, added));
    auto joinedType = cast<RankedTensorType>(c.concat.getType());
    auto present = tensor::ExtractSliceOp::create(
        b, loc, joinedType, updated, zeros,
        sizesLike(b, loc, updated, joinedType, c.axis, total), ones);
    c.concat.getResult().replaceAllUsesWith(present);
    c.concat.erase();
    dropped.set(c.result);

    // Returned until bufferization has written it in place: the cache, and
    // its length after the step as the extent of an empty tensor.
    b.setInsertionPoint(ret);
    Value fill = tensor::EmptyOp::create(
        b, loc, ArrayRef<OpFoldResult>{b.getIndexAttr(0), total},
        b.getI8Type());
    auto of = [&](StringRef name) {
      return DictionaryAttr::get(ctx,
                                 {NamedAttribute(StringAttr::get(ctx, name),
                                                 b.getI64IntegerAttr(c.arg))});
    };
    extra.append({updated, fill});
    extraAttrs.append({of(kCacheOfAttr), of(kCacheFillOfAttr)});
    made.caches.push_back(
        {c.arg, c.result, c.axis, c.layout.capacity, c.layout.group});
  }

  SmallVector<Value> results;
  SmallVector<DictionaryAttr> resultAttrs;
  for (auto [r, v] : llvm::enumerate(ret.getOperands()))
    if (!dropped.test(r)) {
      results.push_back(v);
      resultAttrs.push_back(fn.getResultAttrDict(r));
    }
  results.append(extra);
  resultAttrs.append(extraAttrs);
  b.setInsertionPoint(ret);
  func::ReturnOp::create(b, ret.getLoc(), results);
  ret.erase();
  SmallVector<Type> resultTypes(
      llvm::map_range(results, [](Value v) { return v.getType(); }));
  fn.setFunctionType(
      FunctionType::get(ctx, body.getArgumentTypes(), resultTypes));
  for (DictionaryAttr &d : resultAttrs)
    if (!d)
      d = DictionaryAttr::get(ctx);
  fn.setAllResultAttrs(resultAttrs);
  return made;
}

namespace {

/// mxc-in-place-caches: makeCachesInPlace on every function, every argument
/// an input, every cache of `capacity` (for tests: mxc compiles call
/// makeCachesInPlace with each cache's own).
struct InPlaceCachesPass : mxc::impl::InPlaceCachesPassBase<InPlaceCachesPass> {
  using InPlaceCachesPassBase::InPlaceCachesPassBase;

  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    if (fn.isExternal())
      return;
    auto made = mxc::makeCachesInPlace(fn, fn.getNumArguments(),
                                       [&](unsigned, int64_t) {
                                         mxc::CacheLayout l;
                                         l.capacity = capacity;
                                         return l;
                                       });
    if (failed(made)) {
      fn.emitError("mxc-in-place-caches: no capacity given");
      signalPassFailure();
    }
  }
};

/// mxc-cache-results: after bufferization, the caches' extra results go.
struct CacheResultsPass : mxc::impl::CacheResultsPassBase<CacheResultsPass> {
  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    if (fn.isExternal() || fn.getNumResults() == 0)
      return;
    Block &body = fn.getBody().front();
    auto ret = cast<func::ReturnOp>(body.getTerminator());
    auto dims = fn->getAttrOfType<ArrayAttr>("mxc.dims");
    unsigned nArgs = fn.getNumArguments();
    OpBuilder b(ret);
    llvm::BitVector drop(fn.getNumResults());
    SmallVector<int64_t> fills;
    for (unsigned r = 0; r < fn.getNumResults(); ++r) {
      if (auto of = fn.getResultAttrOfType<IntegerAttr>(r, mxc::kCacheOfAttr)) {
        drop.set(r);
        Value cache = fn.getArgument(unsigned(of.getInt()));
        Value written = ret.getOperand(r);
        while (auto cast = written.getDefiningOp<memref::CastOp>())
          written = cast.getSource();
        if (written == cache)
          continue;
        // Bufferization could not append in place (something reads the
        // old contents after the write): still correct, through a copy.
        fn.emitWarning("cache input ")
            << of.getInt() << " is updated by a copy of the whole cache, "
            << "not in place";
        memref::CopyOp::create(b, ret.getLoc(), ret.getOperand(r), cache);
      } else if (auto fill = fn.getResultAttrOfType<IntegerAttr>(
                     r, mxc::kCacheFillOfAttr)) {
        drop.set(r);
        if (!dims || dims.size() != nArgs + fn.getNumResults()) {
          fn.emitError("mxc-cache-results: mxc.dims has no entry for result ")
              << r;
          return signalPassFailure();
        }
        auto axes = cast<DenseI64ArrayAttr>(dims[nArgs + r]).asArrayRef();
        fills.append({fill.getInt(), axes.size() > 1 ? axes[1] : -1});
      }
    }
    if (drop.none())
      return;
    SmallVector<Value> kept;
    SmallVector<Type> types;
    SmallVector<DictionaryAttr> attrs;
    SmallVector<Attribute> keptDims(dims ? dims.getValue().take_front(nArgs)
                                         : ArrayRef<Attribute>{});
    for (unsigned r = 0; r < fn.getNumResults(); ++r) {
      if (drop.test(r))
        continue;
      kept.push_back(ret.getOperand(r));
      types.push_back(kept.back().getType());
      attrs.push_back(fn.getResultAttrDict(r) ? fn.getResultAttrDict(r)
                                              : b.getDictionaryAttr({}));
      if (dims)
        keptDims.push_back(dims[nArgs + r]);
    }
    func::ReturnOp::create(b, ret.getLoc(), kept);
    ret.erase();
    fn.setFunctionType(b.getFunctionType(fn.getArgumentTypes(), types));
    fn.setAllResultAttrs(attrs);
    if (dims)
      fn->setAttr("mxc.dims", b.getArrayAttr(keptDims));
    fn->setAttr(mxc::kCacheFillsAttr, b.getDenseI64ArrayAttr(fills));
  }
};

} // namespace
