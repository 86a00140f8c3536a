// SPDX-License-Identifier: Apache-2.0
// Post-training quantization of float ONNX models (mxc --quantize=int8,
// docs/quantization.md) as a rewrite into the QDQ form the importer fuses:
// int8 weights, one scale per output channel, symmetric; int32 biases;
// uint8 activations with ranges calibrated by running the float model.
#ifndef MXC_COMPILER_FRONTENDS_ONNX_QUANTIZE_H
#define MXC_COMPILER_FRONTENDS_ONNX_QUANTIZE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace mxc::onnx {

/// What --quantize=int8 leaves in float.
struct QuantizeSpec {
  /// Node names or operator types (Conv, MatMul, Gemm, Add).
  std::set<std::string> exclude;
};

/// An activation's calibrated range.
struct ActivationRange {
  float lo = 0, hi = 0;
};

/// The activations quantizing `path` quantizes (the inputs and outputs of
/// its Conv, MatMul and Gemm with constant weights and its Add of two such
/// activations, an output taken after the Relu that alone reads it), in
/// graph order; graph inputs among them come first. With `calibrationPath`,
/// writes there the float model with every one of them that is not a graph
/// input as an output too.
llvm::Expected<std::vector<std::string>>
quantizedActivations(llvm::StringRef path, const QuantizeSpec &spec,
                     llvm::StringRef calibrationPath = "");

/// Writes to `outPath` the QDQ form of the float model at `path`: each
/// quantized activation T quantized to uint8 with `ranges`' range for it
/// (widened to hold 0) and dequantized under its own name, so that every
/// reader (a graph output too) reads the dequantized values; each
/// quantized operator's weight int8 (per output channel from opset 13,
/// else per tensor) and bias int32 (scale x_scale * w_scale), each through
/// a DequantizeLinear. With `activationOutputs`, the quantized activations
/// that are not graph inputs are outputs too (for the per-layer report).
llvm::Error
writeQuantizedModel(llvm::StringRef path, const QuantizeSpec &spec,
                    const std::map<std::string, ActivationRange> &ranges,
                    llvm::StringRef outPath, bool activationOutputs = false);

/// uint8 quantization of `range` (widened to hold 0): scale and zero point.
std::pair<float, int32_t> uint8Quantization(ActivationRange range);

} // namespace mxc::onnx

#endif // MXC_COMPILER_FRONTENDS_ONNX_QUANTIZE_H
