// SPDX-License-Identifier: Apache-2.0
#include "passes/memory/DynamicBuffers.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;

namespace mxc {

namespace {

constexpr int64_t kAlignment = 64;

/// Whether `v` is computed from `func`'s dimension array (its only block
/// argument leaf) and constants by pure ops.
bool fromDims(Value v, BlockArgument dims) {
  if (auto arg = dyn_cast<BlockArgument>(v))
    return arg == dims;
  Operation *def = v.getDefiningOp();
  if (!def)
    return false;
  bool pure = isa<arith::ArithDialect>(def->getDialect()) ||
              (isa<memref::LoadOp>(def) &&
               cast<memref::LoadOp>(def).getMemRef() == dims);
  return pure && llvm::all_of(def->getOperands(), [&](Value operand) {
           return fromDims(operand, dims);
         });
}

/// `v`'s computation cloned with `b` (values in `map` reused).
Value cloneTree(OpBuilder &b, Value v, IRMapping &map) {
  if (Value known = map.lookupOrNull(v))
    return known;
  Operation *def = v.getDefiningOp();
  for (Value operand : def->getOperands())
    cloneTree(b, operand, map);
  b.clone(*def, map);
  return map.lookup(v);
}

Value index(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

/// The bytes of `alloc`'s buffer rounded up to the alignment, built with
/// `b` from its extents' clones.
Value alignedBytes(OpBuilder &b, memref::AllocOp alloc, IRMapping &map) {
  Location loc = alloc.getLoc();
  MemRefType type = alloc.getType();
  int64_t staticBytes = elementBytes(type);
  for (int64_t d : type.getShape())
    if (!ShapedType::isDynamic(d))
      staticBytes *= d;
  Value bytes = index(b, loc, staticBytes);
  for (Value extent : alloc.getDynamicSizes())
    bytes = arith::MulIOp::create(b, loc, bytes, cloneTree(b, extent, map));
  Value up =
      arith::AddIOp::create(b, loc, bytes, index(b, loc, kAlignment - 1));
  return arith::AndIOp::create(b, loc, up, index(b, loc, -kAlignment));
}

/// `v` as a formula of the dimensions named `names`.
std::string formula(Value v, ArrayRef<std::string> names) {
  Operation *def = v.getDefiningOp();
  if (auto c = getConstantIntValue(v))
    return std::to_string(*c);
  if (auto load = dyn_cast_or_null<memref::LoadOp>(def)) {
    auto k = getConstantIntValue(load.getIndices()[0]);
    return k && *k < int64_t(names.size())
               ? names[*k]
               : "d" + std::to_string(k.value_or(-1));
  }
  if (isa_and_nonnull<arith::IndexCastOp>(def))
    return formula(def->getOperand(0), names);
  auto binary = [&](const char *op) {
    return "(" + formula(def->getOperand(0), names) + op +
           formula(def->getOperand(1), names) + ")";
  };
  if (isa_and_nonnull<arith::AddIOp>(def)) {
    auto c = getConstantIntValue(def->getOperand(1));
    if (c && *c < 0)
      return "(" + formula(def->getOperand(0), names) + " - " +
             std::to_string(-*c) + ")";
    return binary(" + ");
  }
  if (isa_and_nonnull<arith::SubIOp>(def))
    return binary(" - ");
  if (isa_and_nonnull<arith::MulIOp>(def))
    return formula(def->getOperand(0), names) + "*" +
           formula(def->getOperand(1), names);
  if (isa_and_nonnull<arith::DivSIOp, arith::DivUIOp>(def))
    return binary(" / ");
  return "?";
}

/// A size class: the buffers of one shape and extents, and which slot of
/// the class each takes (buffers alive at once take different slots).
struct SizeClass {
  memref::AllocOp first;
  std::string bytes; ///< Each buffer's, as a formula of the dimensions.
  std::vector<std::pair<const DynamicBuffer *, unsigned>> members;
  /// Where the last buffer in each slot dies.
  std::vector<unsigned> slotEnds;
};

} // namespace

int64_t elementBytes(MemRefType type) {
  Type element = type.getElementType();
  if (element.isIndex())
    return 8;
  return element.isIntOrFloat() ? (element.getIntOrFloatBitWidth() + 7) / 8 : 0;
}

FailureOr<std::vector<DynamicClass>>
placeDynamicBuffers(func::FuncOp func, ArrayRef<DynamicBuffer> buffers,
                    Value arena, int64_t staticBytes,
                    ArrayRef<std::string> dimNames) {
  std::vector<DynamicClass> report;
  if (buffers.empty())
    return report;
  // The dimension array: the memref<Kxi64> argument mxc-bind-dims added.
  BlockArgument dims;
  for (BlockArgument arg : func.getArguments())
    if (auto t = dyn_cast<MemRefType>(arg.getType());
        t && t.getRank() == 1 && t.getElementType().isInteger(64) &&
        arg != arena)
      dims = arg;
  if (!dims)
    return failure();
  for (const DynamicBuffer &buffer : buffers) {
    if (!elementBytes(memref::AllocOp(buffer.alloc).getType()))
      return failure();
    for (Value extent : memref::AllocOp(buffer.alloc).getDynamicSizes())
      if (!fromDims(extent, dims))
        return failure();
  }
  // Classes by shape and extents (the same values), in order of first
  // appearance; slots by lifetime.
  std::vector<SizeClass> classes;
  std::vector<const DynamicBuffer *> order;
  for (const DynamicBuffer &buffer : buffers)
    order.push_back(&buffer);
  llvm::stable_sort(order,
                    [](auto *a, auto *b) { return a->start < b->start; });
  // Equal formulas are equal sizes: the same function of the dimensions.
  auto bytesFormula = [&](memref::AllocOp alloc) {
    MemRefType type = alloc.getType();
    int64_t staticBytes = elementBytes(type);
    for (int64_t d : type.getShape())
      if (!ShapedType::isDynamic(d))
        staticBytes *= d;
    std::string f = std::to_string(staticBytes);
    for (Value extent : alloc.getDynamicSizes())
      f += "*" + formula(extent, dimNames);
    return f;
  };
  for (const DynamicBuffer *buffer : order) {
    memref::AllocOp alloc = buffer->alloc;
    std::string bytes = bytesFormula(alloc);
    auto same = [&](SizeClass &c) { return c.bytes == bytes; };
    auto it = llvm::find_if(classes, same);
    if (it == classes.end()) {
      classes.push_back(SizeClass{alloc, bytes, {}, {}});
      it = std::prev(classes.end());
    }
    SizeClass &c = *it;
    unsigned slot = 0;
    while (slot < c.slotEnds.size() && c.slotEnds[slot] >= buffer->start)
      ++slot;
    if (slot == c.slotEnds.size())
      c.slotEnds.push_back(buffer->end);
    c.slotEnds[slot] = buffer->end;
    c.members.push_back({buffer, slot});
  }
  // Offsets on entry, after the static part.
  Location loc = func.getLoc();
  OpBuilder b = OpBuilder::atBlockBegin(&func.getBody().front());
  IRMapping entry;
  entry.map(dims, dims);
  Value offset =
      index(b, loc, (staticBytes + kAlignment - 1) / kAlignment * kAlignment);
  std::map<const DynamicBuffer *, Value> offsets;
  for (SizeClass &c : classes) {
    Value bytes = alignedBytes(b, c.first, entry);
    report.push_back(
        {"align64(" + c.bytes + ")", c.members.size(), c.slotEnds.size()});
    for (auto [buffer, slot] : c.members)
      offsets[buffer] = arith::AddIOp::create(
          b, loc, offset,
          arith::MulIOp::create(b, loc, bytes, index(b, loc, slot)));
    offset = arith::AddIOp::create(
        b, loc, offset,
        arith::MulIOp::create(b, loc, bytes, index(b, loc, c.slotEnds.size())));
  }
  for (const DynamicBuffer &buffer : buffers) {
    memref::AllocOp alloc = buffer.alloc;
    OpBuilder at(alloc);
    Value view =
        memref::ViewOp::create(at, alloc.getLoc(), alloc.getType(), arena,
                               offsets[&buffer], alloc.getDynamicSizes());
    for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
      if (isa<memref::DeallocOp>(user))
        user->erase();
    alloc.getResult().replaceAllUsesWith(view);
    alloc.erase();
  }
  // <func>_scratch(dims) -> the arena's bytes for a call.
  OpBuilder mb(func);
  mb.setInsertionPointAfter(func);
  auto scratch = func::FuncOp::create(
      mb, loc, (func.getSymName() + "_scratch").str(),
      mb.getFunctionType({dims.getType()}, {mb.getIndexType()}));
  Block *body = scratch.addEntryBlock();
  OpBuilder sb = OpBuilder::atBlockBegin(body);
  IRMapping map;
  map.map(dims, body->getArgument(0));
  func::ReturnOp::create(sb, loc, cloneTree(sb, offset, map));
  scratch->setAttr("mxc.scratch_of", mb.getStringAttr(func.getSymName()));
  return report;
}

} // namespace mxc
