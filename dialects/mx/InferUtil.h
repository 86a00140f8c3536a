// SPDX-License-Identifier: Apache-2.0
// Helpers of the mx ops' result-type inference (MxOps.cpp, MxGradOps.cpp,
// MxOnnxOps.cpp), where inference is the verifier: each check that more
// than one op makes, with its message, is written here once.
#ifndef MXC_DIALECTS_MX_INFERUTIL_H
#define MXC_DIALECTS_MX_INFERUTIL_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <initializer_list>
#include <optional>
#include <string>

namespace mxc::mx::infer {

/// Emits `message` at `loc` (when inference has a location) and fails.
inline mlir::LogicalResult fail(std::optional<mlir::Location> loc,
                                const llvm::Twine &message) {
  return mlir::emitOptionalError(loc, message);
}

inline mlir::RankedTensorType tensorOf(mlir::Value v) {
  return mlir::cast<mlir::RankedTensorType>(v.getType());
}

/// A shape as Python prints a tuple: "(2, 3)", "(4,)", "()".
std::string shapeStr(llvm::ArrayRef<int64_t> shape);

/// A type as the IR prints it: "f32", "i1".
std::string typeStr(mlir::Type type);

inline bool isOneOf(llvm::StringRef s,
                    std::initializer_list<llvm::StringRef> options) {
  return llvm::is_contained(options, s);
}

/// Fails with "<name> '<value>' is not one of a, b, c" unless `value` is one
/// of `options`.
mlir::LogicalResult checkOneOf(std::optional<mlir::Location> loc,
                               llvm::StringRef name, llvm::StringRef value,
                               std::initializer_list<llvm::StringRef> options);

//===----------------------------------------------------------------------===//
// Axes
//===----------------------------------------------------------------------===//

/// A possibly negative axis of a verified op, counted from 0.
inline int64_t wrapAxis(int64_t axis, int64_t rank) {
  return axis < 0 ? axis + rank : axis;
}

/// Resolves a possibly negative axis; fails with "<what> <axis> is out of
/// range for rank <rank>".
mlir::FailureOr<int64_t> normalizeAxis(std::optional<mlir::Location> loc,
                                       int64_t axis, int64_t rank,
                                       llvm::StringRef what = "axis");

/// The axes a reduction over `axes` (all of them when empty; the others
/// with `exclude`) reduces, as one flag per axis; fails on an axis out of
/// range or listed twice.
mlir::FailureOr<llvm::SmallVector<bool>>
reducedAxes(std::optional<mlir::Location> loc, llvm::ArrayRef<int64_t> axes,
            int64_t rank, bool exclude);

/// `shape` without its `reduced` axes, or with extents of 1 there when
/// `keepdims`.
llvm::SmallVector<int64_t> reducedShape(llvm::ArrayRef<int64_t> shape,
                                        llvm::ArrayRef<bool> reduced,
                                        bool keepdims);

//===----------------------------------------------------------------------===//
// Shapes
//===----------------------------------------------------------------------===//

/// NumPy broadcasting of `shapes`; none when they do not broadcast.
std::optional<llvm::SmallVector<int64_t>>
broadcast(llvm::ArrayRef<llvm::ArrayRef<int64_t>> shapes);

/// broadcast(), failing with "operand shapes A and B do not broadcast".
mlir::FailureOr<llvm::SmallVector<int64_t>>
broadcastShapes(std::optional<mlir::Location> loc,
                llvm::ArrayRef<llvm::ArrayRef<int64_t>> shapes);

/// Whether `from` broadcasts to `to` alone (right-aligned, extents equal or
/// 1 in `from`).
bool broadcastsTo(llvm::ArrayRef<int64_t> from, llvm::ArrayRef<int64_t> to);

/// Whether extents `a` and `b` may be equal: the same, or either known only
/// at run time.
inline bool mayBeEqual(int64_t a, int64_t b) {
  return a == b || mlir::ShapedType::isDynamic(a) ||
         mlir::ShapedType::isDynamic(b);
}

/// Fails with "<what> shape <actual> does not match <expected>" unless
/// `actual` is `want`.
mlir::LogicalResult checkShape(std::optional<mlir::Location> loc,
                               llvm::StringRef what,
                               llvm::ArrayRef<int64_t> actual,
                               llvm::ArrayRef<int64_t> want,
                               const llvm::Twine &expected);

/// A layer's optional bias (fc_c3, conv_c5, deconv_c5): present exactly when
/// no_bias is unset, of shape (extent,); `expected` describes that shape.
mlir::LogicalResult checkBias(std::optional<mlir::Location> loc, bool noBias,
                              mlir::Value bias, int64_t extent,
                              const llvm::Twine &expected);

//===----------------------------------------------------------------------===//
// Sliding windows (convolution, pooling)
//===----------------------------------------------------------------------===//

/// Fills defaults for a per-spatial-axis attribute (stride, dilate, pad).
inline llvm::SmallVector<int64_t> withDefault(llvm::ArrayRef<int64_t> values,
                                              size_t n, int64_t dflt) {
  if (values.empty())
    return llvm::SmallVector<int64_t>(n, dflt);
  return llvm::SmallVector<int64_t>(values);
}

/// A windowed op's strides and dilations with MXNet's defaults (1 per
/// spatial axis), and its padding (0; `padsPerAxis` values per axis: 1 for
/// MXNet's symmetric pad, 2 for ONNX's begin and end).
template <typename WindowOp> llvm::SmallVector<int64_t> stridesOf(WindowOp op) {
  return withDefault(op.getStride(), op.getKernel().size(), 1);
}
template <typename WindowOp>
llvm::SmallVector<int64_t> dilationsOf(WindowOp op) {
  return withDefault(op.getDilate(), op.getKernel().size(), 1);
}
template <typename WindowOp>
llvm::SmallVector<int64_t> paddingOf(WindowOp op, size_t padsPerAxis) {
  return withDefault(op.getPad(), padsPerAxis * op.getKernel().size(), 0);
}

/// A per-spatial-axis attribute is empty or has `n` values, each at least
/// `minValue`.
mlir::LogicalResult checkSpatialAttr(std::optional<mlir::Location> loc,
                                     llvm::StringRef name,
                                     llvm::ArrayRef<int64_t> values, size_t n,
                                     int64_t minValue);

/// A window's stride, dilation and (symmetric) padding per spatial axis,
/// defaults filled.
struct Window {
  llvm::SmallVector<int64_t> stride, dilate, pad;
};

/// Checks stride and dilate (>= 1) and pad (>= 0), each empty or one value
/// per each of `n` spatial axes, and fills their defaults.
mlir::FailureOr<Window> checkWindow(std::optional<mlir::Location> loc,
                                    llvm::ArrayRef<int64_t> stride,
                                    llvm::ArrayRef<int64_t> dilate,
                                    llvm::ArrayRef<int64_t> pad, size_t n);

/// An input extent with `pads` elements of padding added; dynamic when
/// `in` is.
inline int64_t paddedExtent(int64_t in, int64_t pads) {
  return mlir::ShapedType::isDynamic(in) ? in : in + pads;
}

/// How many windows of `kernel` elements `dilate` apart, `stride` apart,
/// fit in `padded` elements (with `ceil`, a last partial one too; dynamic
/// when `padded` is, the check left to the run time); fails
/// with "padded input extent P on spatial axis <axis> is smaller than the
/// <kernelName> (E)" where none fits.
mlir::FailureOr<int64_t> windowCount(std::optional<mlir::Location> loc,
                                     size_t axis, int64_t padded,
                                     int64_t kernel, int64_t dilate,
                                     int64_t stride, bool ceil,
                                     llvm::StringRef kernelName);

/// Whether window `o` of a pooling (stride, padding before the input,
/// kernel, dilation) reads an element of an input of `in` elements rather
/// than padding only.
bool windowReachesIn(int64_t o, int64_t stride, int64_t padBegin,
                     int64_t kernel, int64_t dilate, int64_t in);

/// conv_c3, deconv_c3: num_group divides the channels and num_filter.
mlir::LogicalResult checkGroups(std::optional<mlir::Location> loc,
                                int64_t filters, int64_t groups,
                                int64_t channels);

/// bn_c1-c2, layernorm_c1-c2: `axis` is an axis of `data`, and each named
/// per-channel operand is 1-D with its extent (`extent` words it).
mlir::LogicalResult checkChannelOperands(
    std::optional<mlir::Location> loc, mlir::RankedTensorType data,
    int64_t axis,
    llvm::ArrayRef<std::pair<llvm::StringRef, mlir::Value>> operands,
    llvm::StringRef extent);

} // namespace mxc::mx::infer

#endif // MXC_DIALECTS_MX_INFERUTIL_H
