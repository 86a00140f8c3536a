// SPDX-License-Identifier: Apache-2.0
// mxc --quantize=int8 --calibrate: runs the float model, compiled with its
// activations as outputs, on the calibration samples through libmxrt (the
// tool is the one layer that may run what the compiler makes) and turns
// what they hold into ranges (docs/quantization.md).
#ifndef MXC_TOOLS_MXC_CALIBRATE_H
#define MXC_TOOLS_MXC_CALIBRATE_H

#include "compiler/driver/Compiler.h"
#include "compiler/frontends/onnx/Quantize.h"

#include "llvm/Support/Error.h"

#include <map>
#include <string>
#include <vector>

namespace mxc {

struct CalibrationOptions {
  /// How a range is chosen: minmax (all values), percentile (the values
  /// between the (100 - p)-th and p-th percentiles) or entropy (the
  /// threshold whose 8-bit histogram keeps the least Kullback-Leibler
  /// divergence from the values', as MXNet's and TensorRT's calibration).
  std::string method = "minmax";
  double percentile = 99.99;
  /// .npy files, or directories of them, each with samples of an input,
  /// stacked along the first axis (or one sample), by input name; "" for
  /// the sources of a model's one input.
  std::map<std::string, std::vector<std::string>> sources;
};

/// The range of each activation in `names` over the samples: the float
/// library `library` has them as outputs; a graph input among them is
/// measured on the samples themselves. Returns also how many samples ran.
llvm::Expected<std::map<std::string, onnx::ActivationRange>>
calibrate(const std::string &library, const std::vector<std::string> &names,
          const CalibrationOptions &options, int64_t &samples);

/// Per activation in `names`, ||quantized - float|| / ||float|| on the
/// first batch of the samples: both libraries have the activations as
/// outputs.
llvm::Expected<std::vector<std::pair<std::string, double>>> activationErrors(
    const std::string &floatLibrary, const std::string &quantizedLibrary,
    const std::vector<std::string> &names, const CalibrationOptions &options);

/// mxc --quantize=int8: rewrites options.modelPath (ONNX) into its int8 QDQ
/// form in `workDir`, calibrated on the samples with a float library
/// compiled there from the same options, and points options.modelPath at
/// it. With `report`, prints each activation's range and its error against
/// float (a third library) to stderr.
llvm::Error quantizeModel(CompileOptions &options,
                          const onnx::QuantizeSpec &spec,
                          const CalibrationOptions &calibration, bool report,
                          const std::string &workDir);

} // namespace mxc

#endif // MXC_TOOLS_MXC_CALIBRATE_H
