// SPDX-License-Identifier: Apache-2.0
// The checks and shape rules the mx ops' inference shares (InferUtil.h):
// one definition of each, so an axis, a broadcast or a window is checked,
// and its error worded, the same way by every op.
#include "dialects/mx/InferUtil.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace mxc::mx::infer {

std::string shapeStr(ArrayRef<int64_t> shape) {
  std::string s = "(";
  for (auto [i, d] : llvm::enumerate(shape)) {
    if (i)
      s += ", ";
    s += ShapedType::isDynamic(d) ? std::string("?") : std::to_string(d);
  }
  if (shape.size() == 1)
    s += ",";
  return s + ")";
}

std::string typeStr(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  type.print(os);
  return s;
}

LogicalResult checkOneOf(std::optional<Location> loc, StringRef name,
                         StringRef value,
                         std::initializer_list<StringRef> options) {
  if (isOneOf(value, options))
    return success();
  return fail(loc, name + " '" + value + "' is not one of " +
                       llvm::join(options, ", "));
}

FailureOr<int64_t> normalizeAxis(std::optional<Location> loc, int64_t axis,
                                 int64_t rank, StringRef what) {
  if (axis < -rank || axis >= rank) {
    (void)fail(loc, what + " " + Twine(axis) + " is out of range for rank " +
                        Twine(rank));
    return failure();
  }
  return wrapAxis(axis, rank);
}

FailureOr<SmallVector<bool>> reducedAxes(std::optional<Location> loc,
                                         ArrayRef<int64_t> axes, int64_t rank,
                                         bool exclude) {
  if (axes.empty())
    return SmallVector<bool>(rank, true);
  SmallVector<bool> listed(rank, false);
  for (int64_t a : axes) {
    auto axis = normalizeAxis(loc, a, rank);
    if (failed(axis))
      return failure();
    if (listed[*axis]) {
      (void)fail(loc, "axis " + Twine(a) + " is listed twice");
      return failure();
    }
    listed[*axis] = true;
  }
  for (bool &reduced : listed)
    reduced = reduced != exclude;
  return listed;
}

SmallVector<int64_t> reducedShape(ArrayRef<int64_t> shape,
                                  ArrayRef<bool> reduced, bool keepdims) {
  SmallVector<int64_t> out;
  for (auto [d, r] : llvm::zip(shape, reduced))
    if (!r)
      out.push_back(d);
    else if (keepdims)
      out.push_back(1);
  return out;
}

std::optional<SmallVector<int64_t>>
broadcast(ArrayRef<ArrayRef<int64_t>> shapes) {
  size_t rank = 0;
  for (ArrayRef<int64_t> s : shapes)
    rank = std::max(rank, s.size());
  SmallVector<int64_t> out(rank, 1);
  for (ArrayRef<int64_t> s : shapes)
    for (auto [i, d] : llvm::enumerate(s)) {
      // A dynamic extent meets 1 (it stays dynamic), itself or a static
      // extent other than 1 (which it must equal at run time).
      int64_t &o = out[rank - s.size() + i];
      if (d == 1 || d == o)
        continue;
      if (o == 1 || ShapedType::isDynamic(o))
        o = d;
      else if (!ShapedType::isDynamic(d))
        return std::nullopt;
    }
  return out;
}

FailureOr<SmallVector<int64_t>>
broadcastShapes(std::optional<Location> loc,
                ArrayRef<ArrayRef<int64_t>> shapes) {
  if (auto out = broadcast(shapes))
    return *out;
  std::string text;
  for (auto [k, t] : llvm::enumerate(shapes))
    text += (k ? " and " : "") + shapeStr(t);
  (void)fail(loc, "operand shapes " + text + " do not broadcast");
  return failure();
}

bool broadcastsTo(ArrayRef<int64_t> from, ArrayRef<int64_t> to) {
  if (from.size() > to.size())
    return false;
  ArrayRef<int64_t> tail = to.take_back(from.size());
  return llvm::all_of(llvm::zip(from, tail), [](auto pair) {
    auto [f, t] = pair;
    return f == t || f == 1;
  });
}

LogicalResult checkShape(std::optional<Location> loc, StringRef what,
                         ArrayRef<int64_t> actual, ArrayRef<int64_t> want,
                         const Twine &expected) {
  if (actual == want)
    return success();
  return fail(loc, what + " shape " + shapeStr(actual) + " does not match " +
                       expected);
}

LogicalResult checkBias(std::optional<Location> loc, bool noBias, Value bias,
                        int64_t extent, const Twine &expected) {
  if (noBias != !bias)
    return fail(loc, noBias ? "has a bias but no_bias is set"
                            : "needs a bias unless no_bias is set");
  if (!bias)
    return success();
  return checkShape(loc, "bias", tensorOf(bias).getShape(), {extent}, expected);
}

LogicalResult checkSpatialAttr(std::optional<Location> loc, StringRef name,
                               ArrayRef<int64_t> values, size_t n,
                               int64_t minValue) {
  if (!values.empty() && values.size() != n)
    return fail(loc, name + " has " + Twine(values.size()) +
                         " values, expected " + Twine(n) +
                         " (one per spatial axis)");
  for (int64_t v : values)
    if (v < minValue)
      return fail(loc, name + " values must be >= " + Twine(minValue) +
                           ", got " + shapeStr(values));
  return success();
}

FailureOr<Window> checkWindow(std::optional<Location> loc,
                              ArrayRef<int64_t> stride,
                              ArrayRef<int64_t> dilate, ArrayRef<int64_t> pad,
                              size_t n) {
  if (failed(checkSpatialAttr(loc, "stride", stride, n, 1)) ||
      failed(checkSpatialAttr(loc, "dilate", dilate, n, 1)) ||
      failed(checkSpatialAttr(loc, "pad", pad, n, 0)))
    return failure();
  return Window{withDefault(stride, n, 1), withDefault(dilate, n, 1),
                withDefault(pad, n, 0)};
}

FailureOr<int64_t> windowCount(std::optional<Location> loc, size_t axis,
                               int64_t padded, int64_t kernel, int64_t dilate,
                               int64_t stride, bool ceil,
                               StringRef kernelName) {
  int64_t extent = (kernel - 1) * dilate + 1;
  if (ShapedType::isDynamic(padded))
    return ShapedType::kDynamic;
  if (padded < extent) {
    (void)fail(loc, "padded input extent " + Twine(padded) +
                        " on spatial axis " + Twine(axis) +
                        " is smaller than the " + kernelName + " (" +
                        Twine(extent) + ")");
    return failure();
  }
  int64_t span = padded - extent;
  return (ceil ? (span + stride - 1) / stride : span / stride) + 1;
}

bool windowReachesIn(int64_t o, int64_t stride, int64_t padBegin,
                     int64_t kernel, int64_t dilate, int64_t in) {
  for (int64_t k = 0; k < kernel; ++k) {
    int64_t at = o * stride - padBegin + k * dilate;
    if (at >= 0 && at < in)
      return true;
  }
  return false;
}

LogicalResult checkGroups(std::optional<Location> loc, int64_t filters,
                          int64_t groups, int64_t channels) {
  if (filters < 1 || groups < 1 || channels % groups || filters % groups)
    return fail(loc, "num_group " + Twine(groups) +
                         " must divide the data channels (" + Twine(channels) +
                         ") and num_filter (" + Twine(filters) + ")");
  return success();
}

/// bn_c1-c2, layernorm_c1-c2: `axis` is an axis of `data`, and each named
/// per-channel operand is 1-D with its extent (`extent` words it).
LogicalResult checkChannelOperands(
    std::optional<Location> loc, RankedTensorType data, int64_t axis,
    ArrayRef<std::pair<StringRef, Value>> operands, StringRef extent) {
  auto wrapped = normalizeAxis(loc, axis, data.getRank());
  if (failed(wrapped))
    return failure();
  int64_t c = data.getDimSize(*wrapped);
  for (auto [name, v] : operands)
    if (failed(checkShape(loc, name, tensorOf(v).getShape(), {c},
                          extent + " " + shapeStr({c}))))
      return failure();
  return success();
}

} // namespace mxc::mx::infer
