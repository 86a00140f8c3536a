// SPDX-License-Identifier: Apache-2.0
// The two halves of how a function with dynamic extents meets the entry ABI
// (docs/dynamic-shapes.md): mxc-shape-functions derives what the runtime
// must know before a call (each output's extents, from the inputs'), and
// mxc-bind-dims passes every dynamic extent through the model's dimension
// array, so that buffers stay bare pointers.
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mxc {
#define GEN_PASS_DEF_SHAPEFUNCTIONSPASS
#define GEN_PASS_DEF_BINDDIMSPASS
#include "passes/Passes.h.inc"
} // namespace mxc

using namespace mlir;

namespace {

constexpr llvm::StringLiteral kDimsAttr = "mxc.dims";
constexpr llvm::StringLiteral kNumDimsAttr = "mxc.num_dims";
constexpr llvm::StringLiteral kShapeOfAttr = "mxc.shape_of";

/// The model dimension of each axis of each argument, then result (-1 where
/// static).
SmallVector<ArrayRef<int64_t>> dimsOf(func::FuncOp fn) {
  SmallVector<ArrayRef<int64_t>> dims;
  if (auto attr = fn->getAttrOfType<ArrayAttr>(kDimsAttr))
    for (Attribute a : attr)
      dims.push_back(cast<DenseI64ArrayAttr>(a).asArrayRef());
  return dims;
}

struct ShapeFunctionsPass
    : mxc::impl::ShapeFunctionsPassBase<ShapeFunctionsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> fns;
    for (auto fn : module.getOps<func::FuncOp>())
      if (fn->hasAttr(kDimsAttr) && !fn.isExternal())
        fns.push_back(fn);
    for (func::FuncOp fn : fns)
      if (failed(derive(fn)))
        return signalPassFailure();
  }

  LogicalResult derive(func::FuncOp fn) {
    SmallVector<ArrayRef<int64_t>> dims = dimsOf(fn);
    unsigned nIn = fn.getNumArguments();
    if (dims.size() != nIn + fn.getNumResults())
      return fn.emitError("mxc.dims has ")
             << dims.size() << " entries for " << nIn << " arguments and "
             << fn.getNumResults() << " results";
    OpBuilder b(fn);
    b.setInsertionPointAfter(fn);
    auto shapes = cast<func::FuncOp>(b.clone(*fn));
    shapes.setSymName((fn.getSymName() + "_shapes").str());
    auto ret = cast<func::ReturnOp>(shapes.getBody().back().getTerminator());
    b.setInsertionPoint(ret);
    SmallVector<Value> extents;
    SmallVector<std::pair<unsigned, int64_t>> where;
    for (auto [r, v] : llvm::enumerate(ret.getOperands())) {
      auto type = cast<ShapedType>(v.getType());
      for (int64_t axis = 0; axis < type.getRank(); ++axis)
        if (type.isDynamicDim(axis)) {
          extents.push_back(tensor::DimOp::create(b, ret.getLoc(), v, axis));
          where.push_back({unsigned(r), axis});
        }
    }
    func::ReturnOp::create(b, ret.getLoc(), extents);
    ret.erase();
    shapes.setFunctionType(
        b.getFunctionType(shapes.getArgumentTypes(),
                          SmallVector<Type>(extents.size(), b.getIndexType())));
    SmallVector<Attribute> inDims;
    for (unsigned i = 0; i < nIn; ++i)
      inDims.push_back(b.getDenseI64ArrayAttr(dims[i]));
    shapes->setAttr(kDimsAttr, b.getArrayAttr(inDims));
    shapes.setAllResultAttrs(ArrayRef<DictionaryAttr>{});
    // Reify the result extents back to the arguments' and drop the rest.
    RewritePatternSet patterns(&getContext());
    memref::populateResolveRankedShapedTypeResultDimsPatterns(patterns);
    memref::populateResolveShapedTypeResultDimsPatterns(patterns);
    tensor::DimOp::getCanonicalizationPatterns(patterns, &getContext());
    arith::AddIOp::getCanonicalizationPatterns(patterns, &getContext());
    if (failed(applyPatternsGreedily(shapes, std::move(patterns))))
      return shapes.emitError("the output extents do not settle");
    // What is left may read only the arguments' extents.
    ret = cast<func::ReturnOp>(shapes.getBody().back().getTerminator());
    if (failed(checkComputable(fn, ret, where)))
      return failure();
    // An extent that is an input's is that dimension; the others are
    // derived, numbered after the inputs' dimensions (one per distinct
    // value), and returned.
    int64_t next = 0;
    for (unsigned i = 0; i < nIn; ++i)
      for (int64_t d : dims[i])
        next = std::max(next, d + 1);
    SmallVector<SmallVector<int64_t>> resultDims;
    for (unsigned r = 0; r < fn.getNumResults(); ++r)
      resultDims.emplace_back(dims[nIn + r]);
    DenseMap<Value, int64_t> derived;
    SmallVector<Value> returned;
    SmallVector<int64_t> shapeOf;
    for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
      int64_t &d = resultDims[where[i].first][where[i].second];
      auto dim = v.getDefiningOp<tensor::DimOp>();
      if (dim && dim.getConstantIndex()) {
        auto arg = cast<BlockArgument>(dim.getSource());
        d = dims[arg.getArgNumber()][*dim.getConstantIndex()];
        continue;
      }
      auto [it, inserted] = derived.try_emplace(v, next);
      if (inserted) {
        ++next;
        returned.push_back(v);
        shapeOf.push_back(it->second);
      }
      d = it->second;
    }
    b.setInsertionPoint(ret);
    func::ReturnOp::create(b, ret.getLoc(), returned);
    ret.erase();
    shapes.setFunctionType(b.getFunctionType(
        shapes.getArgumentTypes(),
        SmallVector<Type>(returned.size(), b.getIndexType())));
    shapes->setAttr(kShapeOfAttr, b.getDenseI64ArrayAttr(shapeOf));
    SmallVector<Attribute> allDims(llvm::map_range(
        ArrayRef(dims).take_front(nIn), [&](ArrayRef<int64_t> d) -> Attribute {
          return b.getDenseI64ArrayAttr(d);
        }));
    for (ArrayRef<int64_t> d : resultDims)
      allDims.push_back(b.getDenseI64ArrayAttr(d));
    fn->setAttr(kDimsAttr, b.getArrayAttr(allDims));
    for (func::FuncOp f : {fn, shapes})
      f->setAttr(kNumDimsAttr, b.getI64IntegerAttr(next));
    return success();
  }

  /// Fails, naming the result and axis, when an extent `ret` returns reads
  /// more than the arguments' extents.
  LogicalResult checkComputable(func::FuncOp fn, func::ReturnOp ret,
                                ArrayRef<std::pair<unsigned, int64_t>> where) {
    for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
      SmallVector<Operation *> work;
      if (Operation *def = v.getDefiningOp())
        work.push_back(def);
      while (!work.empty()) {
        Operation *op = work.pop_back_val();
        auto dim = dyn_cast<tensor::DimOp>(op);
        if (dim && isa<BlockArgument>(dim.getSource()))
          continue;
        if (dim || !isa<arith::ArithDialect>(op->getDialect()))
          return fn.emitError("extent ")
                 << where[i].second << " of result " << where[i].first
                 << " depends on the values of the inputs, not only on "
                    "their shapes ("
                 << op->getName() << ")";
        for (Value operand : op->getOperands())
          if (Operation *def = operand.getDefiningOp())
            work.push_back(def);
      }
    }
    return success();
  }
};

struct BindDimsPass : mxc::impl::BindDimsPassBase<BindDimsPass> {
  void runOnOperation() override {
    for (auto fn : getOperation().getOps<func::FuncOp>())
      if (fn->hasAttr(kDimsAttr) && !fn.isExternal())
        bind(fn);
  }

  void bind(func::FuncOp fn) {
    MLIRContext *ctx = &getContext();
    auto numDims = fn->getAttrOfType<IntegerAttr>(kNumDimsAttr);
    int64_t k = numDims ? numDims.getInt() : 0;
    SmallVector<ArrayRef<int64_t>> dims = dimsOf(fn);
    Block &entry = fn.getBody().front();
    Location loc = fn.getLoc();
    auto arrayType = MemRefType::get({k}, IntegerType::get(ctx, 64));
    if (failed(fn.insertArgument(fn.getNumArguments(), arrayType, {}, loc)))
      return signalPassFailure();
    BlockArgument array = entry.getArguments().back();
    OpBuilder b = OpBuilder::atBlockBegin(&entry);
    DenseMap<int64_t, Value> loaded;
    auto dimValue = [&](int64_t d) {
      Value &v = loaded[d];
      if (!v) {
        Value at = arith::ConstantIndexOp::create(b, loc, d);
        Value raw = memref::LoadOp::create(b, loc, array, at);
        v = arith::IndexCastOp::create(b, loc, b.getIndexType(), raw);
      }
      return v;
    };
    SmallVector<Type> argTypes(fn.getArgumentTypes());
    for (unsigned i = 0; i + 1 < entry.getNumArguments(); ++i) {
      BlockArgument arg = entry.getArgument(i);
      auto type = dyn_cast<MemRefType>(arg.getType());
      if (!type || type.hasStaticShape() || i >= dims.size())
        continue;
      ArrayRef<int64_t> axes = dims[i];
      if (axes.size() != size_t(type.getRank()) ||
          llvm::any_of(llvm::enumerate(axes), [&](auto a) {
            return type.isDynamicDim(a.index()) &&
                   (a.value() < 0 || a.value() >= k);
          })) {
        fn.emitError("mxc.dims entry ")
            << i << " does not name a dimension for each dynamic extent of "
            << type;
        return signalPassFailure();
      }
      SmallVector<OpFoldResult> sizes;
      for (int64_t axis = 0; axis < type.getRank(); ++axis)
        sizes.push_back(
            type.isDynamicDim(axis)
                ? OpFoldResult(dimValue(axes[axis]))
                : OpFoldResult(b.getIndexAttr(type.getDimSize(axis))));
      // Reads of an extent become the dimension's value.
      for (OpOperand &use : llvm::make_early_inc_range(arg.getUses()))
        if (auto dim = dyn_cast<memref::DimOp>(use.getOwner()))
          if (auto axis = dim.getConstantIndex()) {
            dim.replaceAllUsesWith(
                getValueOrCreateConstantIndexOp(b, loc, sizes[*axis]));
            dim.erase();
          }
      auto bare = MemRefType::get({1}, type.getElementType());
      argTypes[i] = bare;
      arg.setType(bare);
      if (arg.use_empty())
        continue;
      // Row-major strides of the run-time extents.
      SmallVector<OpFoldResult> strides(type.getRank());
      OpFoldResult stride = b.getIndexAttr(1);
      for (int64_t axis = type.getRank() - 1; axis >= 0; --axis) {
        strides[axis] = stride;
        auto s = getConstantIntValue(stride),
             e = getConstantIntValue(sizes[axis]);
        if (s && e) { // static as far as here: the identity layout's own
          stride = b.getIndexAttr(*s * *e);
          continue;
        }
        stride = OpFoldResult(
            arith::MulIOp::create(
                b, loc, getValueOrCreateConstantIndexOp(b, loc, stride),
                getValueOrCreateConstantIndexOp(b, loc, sizes[axis]))
                .getResult());
      }
      // The identity layout itself, whose static strides these match.
      auto view = memref::ReinterpretCastOp::create(
          b, loc, type, arg, b.getIndexAttr(0), sizes, strides);
      Operation *viewOp = view;
      arg.replaceUsesWithIf(view, [&](OpOperand &use) -> bool {
        return use.getOwner() != viewOp;
      });
    }
    if (auto shapeOf = fn->getAttrOfType<DenseI64ArrayAttr>(kShapeOfAttr)) {
      // A shape function: its extents go to the array, its buffers go.
      auto ret = cast<func::ReturnOp>(fn.getBody().back().getTerminator());
      b.setInsertionPoint(ret);
      for (auto [v, d] : llvm::zip(ret.getOperands(), shapeOf.asArrayRef())) {
        Value at = arith::ConstantIndexOp::create(b, loc, d);
        Value raw = arith::IndexCastOp::create(b, loc, b.getI64Type(), v);
        memref::StoreOp::create(b, loc, raw, array, at);
      }
      func::ReturnOp::create(b, loc);
      ret.erase();
      llvm::BitVector unused(entry.getNumArguments());
      for (unsigned i = 0; i + 1 < entry.getNumArguments(); ++i)
        unused.set(i);
      (void)fn.eraseArguments(unused);
      fn.setFunctionType(b.getFunctionType({arrayType}, {}));
      fn.setAllArgAttrs(ArrayRef<DictionaryAttr>{});
      return;
    }
    fn.setFunctionType(b.getFunctionType(argTypes, fn.getResultTypes()));
  }
};

} // namespace
