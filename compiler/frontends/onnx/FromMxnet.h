// SPDX-License-Identifier: Apache-2.0
// An MXNet model (symbol JSON + .params) written as an ONNX model: what
// mxc --quantize=int8 rewrites when it is given an MXNet model, and what
// mxc --emit=onnx writes (docs/quantization.md, docs/compiling.md).
#ifndef MXC_COMPILER_FRONTENDS_ONNX_FROMMXNET_H
#define MXC_COMPILER_FRONTENDS_ONNX_FROMMXNET_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace mxc::onnx {

/// Writes to `outPath` (opset 13) the inference graph of the MXNet model
/// `symbolPath` with the arrays of `paramsPath` as initializers: every
/// variable the file holds is a weight (BatchNorm's gamma as ones where
/// fix_gamma), every other one an input of the shape `inputShapes` gives
/// it (a label that only a loss output reads is dropped), and each head an
/// output named as MXNet names it. Operators: Convolution, BatchNorm,
/// Activation, LeakyReLU, Pooling, FullyConnected, Flatten, Concat,
/// elementwise, broadcast and scalar arithmetic, reductions, dot, LRN,
/// Dropout, softmax and SoftmaxOutput, Reshape (0 and -1 codes), slice,
/// squeeze, expand_dims, clip, transpose and identities; any other is an
/// error naming it and its node.
llvm::Error
writeMxnetAsOnnx(llvm::StringRef symbolPath, llvm::StringRef paramsPath,
                 const std::map<std::string, std::vector<int64_t>> &inputShapes,
                 llvm::StringRef outPath);

} // namespace mxc::onnx

#endif // MXC_COMPILER_FRONTENDS_ONNX_FROMMXNET_H
