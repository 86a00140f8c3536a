// SPDX-License-Identifier: Apache-2.0
// Calibration runs of mxc --quantize=int8 (Calibrate.h): the float model's
// library, compiled with the activations to quantize as outputs, opened
// with libmxrt and run on the samples a batch at a time.
#include "Calibrate.h"

#include "compiler/frontends/onnx/FromMxnet.h"

#include "mxrt/mxrt.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>

namespace mxc {
namespace {

llvm::Error error(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// A compiled model opened for runs: its one float input (a batch of
/// `batch` samples) and its outputs.
class Runner {
public:
  static llvm::Expected<std::unique_ptr<Runner>> open(const std::string &path) {
    auto r = std::make_unique<Runner>();
    if (mxrt_model_open(path.c_str(), &r->model) != MXRT_OK)
      return error("'" + path + "': " + mxrt_last_error());
    if (mxrt_model_num_inputs(r->model) != 1)
      return error("--calibrate takes models of one input; this one has " +
                   llvm::Twine(mxrt_model_num_inputs(r->model)));
    mxrt_tensor_info in;
    mxrt_model_input_info(r->model, 0, &in);
    if (in.dtype != MXRT_F32 || in.ndim < 1)
      return error("--calibrate: input '" + llvm::Twine(in.name) +
                   "' is not a float32 tensor with a batch axis");
    r->inputName = in.name;
    r->shape.assign(in.shape, in.shape + in.ndim);
    r->sampleSize = 1;
    for (int32_t d = 1; d < in.ndim; ++d)
      r->sampleSize *= in.shape[d];
    if (mxrt_instance_create(r->model, nullptr, &r->instance) != MXRT_OK)
      return error("'" + path + "': " + mxrt_last_error());
    for (int32_t i = 0; i < mxrt_model_num_outputs(r->model); ++i) {
      mxrt_tensor_info info;
      mxrt_model_output_info(r->model, i, &info);
      mxrt_tensor *t = nullptr;
      if (mxrt_tensor_create(info.dtype, info.ndim, info.shape, &t) != MXRT_OK)
        return error("'" + path + "': " + mxrt_last_error());
      r->outputs.push_back(t);
      r->outputNames.push_back(info.name);
      r->outputFloat.push_back(info.dtype == MXRT_F32);
    }
    return std::move(r);
  }
  ~Runner() {
    for (mxrt_tensor *t : outputs)
      mxrt_tensor_release(t);
    mxrt_instance_release(instance);
    mxrt_model_release(model);
  }
  /// Runs one batch (shape's first extent of samples, back to back).
  llvm::Error run(float *batch) {
    mxrt_tensor *in = nullptr;
    if (mxrt_tensor_wrap(MXRT_F32, shape.size(), shape.data(), batch, &in) !=
        MXRT_OK)
      return error(mxrt_last_error());
    mxrt_status s = mxrt_instance_run(instance, &in, 1, outputs.data(),
                                      static_cast<int32_t>(outputs.size()));
    mxrt_tensor_release(in);
    if (s != MXRT_OK)
      return error(llvm::Twine("the calibration run failed: ") +
                   mxrt_last_error());
    return llvm::Error::success();
  }
  /// Output `name`'s float values after a run, or null.
  const float *output(const std::string &name, int64_t &count) {
    for (size_t i = 0; i < outputs.size(); ++i)
      if (outputNames[i] == name && outputFloat[i]) {
        count = mxrt_tensor_num_elements(outputs[i]);
        return static_cast<const float *>(mxrt_tensor_data(outputs[i]));
      }
    return nullptr;
  }

  mxrt_model *model = nullptr;
  mxrt_instance *instance = nullptr;
  std::string inputName;
  std::vector<int64_t> shape;
  int64_t sampleSize = 0;
  std::vector<mxrt_tensor *> outputs;
  std::vector<std::string> outputNames;
  std::vector<bool> outputFloat;
};

/// The .npy files of `sources`, a directory's in name order.
llvm::Expected<std::vector<std::string>>
sampleFiles(const std::vector<std::string> &sources) {
  std::vector<std::string> files;
  for (const std::string &source : sources) {
    if (!llvm::sys::fs::is_directory(source)) {
      if (!llvm::sys::fs::exists(source))
        return error("--calibrate '" + source + "': no such file");
      files.push_back(source);
      continue;
    }
    std::vector<std::string> inDir;
    std::error_code ec;
    for (llvm::sys::fs::directory_iterator it(source, ec), end;
         it != end && !ec; it.increment(ec))
      if (llvm::sys::path::extension(it->path()) == ".npy")
        inDir.push_back(it->path());
    if (ec)
      return error("--calibrate '" + source + "': " + ec.message());
    if (inDir.empty())
      return error("--calibrate '" + source + "': no .npy files in it");
    llvm::sort(inDir);
    files.insert(files.end(), inDir.begin(), inDir.end());
  }
  return files;
}

/// Runs `r` on whole batches of the samples (at most `maxBatches`; -1: all),
/// calling `after(batch)` after each run; returns the samples run. A
/// remainder smaller than a batch is left out.
llvm::Expected<int64_t>
forEachBatch(Runner &r, const std::vector<std::string> &files,
             int64_t maxBatches,
             llvm::function_ref<llvm::Error(const float *)> after) {
  int64_t batch = r.shape[0], filled = 0, batches = 0, total = 0;
  std::vector<float> buffer(batch * r.sampleSize);
  for (const std::string &file : files) {
    mxrt_tensor *t = nullptr;
    if (mxrt_tensor_load_npy(file.c_str(), &t) != MXRT_OK)
      return error("--calibrate '" + file + "': " + mxrt_last_error());
    std::unique_ptr<mxrt_tensor, void (*)(mxrt_tensor *)> owned(
        t, mxrt_tensor_release);
    const int64_t *s = mxrt_tensor_shape(t);
    int32_t ndim = mxrt_tensor_ndim(t);
    // Samples stacked along the first axis, or one sample.
    int32_t lead = ndim == (int32_t)r.shape.size() ? 1 : 0;
    bool fits = mxrt_tensor_dtype(t) == MXRT_F32 &&
                ndim + 1 - lead == (int32_t)r.shape.size();
    for (int32_t d = lead; fits && d < ndim; ++d)
      fits = s[d] == r.shape[d + 1 - lead];
    if (!fits) {
      std::string want = "float32 (N";
      for (size_t d = 1; d < r.shape.size(); ++d)
        want += "x" + std::to_string(r.shape[d]);
      return error("--calibrate '" + file + "': holds " +
                   mxrt_dtype_name(mxrt_tensor_dtype(t)) +
                   " samples that are not input '" + r.inputName +
                   "''s: expected " + want + ")");
    }
    int64_t count = lead ? s[0] : 1;
    const auto *data = static_cast<const float *>(mxrt_tensor_data(t));
    for (int64_t i = 0; i < count; ++i) {
      std::memcpy(buffer.data() + filled * r.sampleSize,
                  data + i * r.sampleSize, r.sampleSize * sizeof(float));
      if (++filled < batch)
        continue;
      if (llvm::Error e = r.run(buffer.data()))
        return std::move(e);
      if (llvm::Error e = after(buffer.data()))
        return std::move(e);
      total += batch;
      filled = 0;
      if (++batches == maxBatches)
        return total;
    }
  }
  if (total == 0)
    return error("--calibrate: " + llvm::Twine(filled) +
                 " samples, fewer than one batch of input '" + r.inputName +
                 "' (" + llvm::Twine(batch) + ")");
  return total;
}

constexpr int kBins = 2048;

/// An activation's values: their range, then (percentile, entropy) a
/// histogram over it (of |x| for entropy).
struct Stats {
  float lo = std::numeric_limits<float>::infinity();
  float hi = -std::numeric_limits<float>::infinity();
  std::vector<double> hist;
  float top = 0; // the histogram's upper end

  void range(const float *v, int64_t n) {
    for (int64_t i = 0; i < n; ++i)
      if (std::isfinite(v[i])) {
        lo = std::min(lo, v[i]);
        hi = std::max(hi, v[i]);
      }
  }
  void histogram(const float *v, int64_t n, bool magnitude) {
    if (hist.empty()) {
      hist.assign(kBins, 0);
      top = magnitude ? std::max(std::fabs(lo), std::fabs(hi)) : hi;
    }
    float base = magnitude ? 0 : lo, width = (top - base) / kBins;
    if (!(width > 0))
      return;
    for (int64_t i = 0; i < n; ++i) {
      float x = magnitude ? std::fabs(v[i]) : v[i];
      if (!std::isfinite(x))
        continue;
      int64_t b = static_cast<int64_t>((x - base) / width);
      hist[std::clamp<int64_t>(b, 0, kBins - 1)] += 1;
    }
  }
};

/// The value below which `fraction` of the histogram's mass lies.
float quantile(const Stats &s, double fraction) {
  double total = 0, seen = 0;
  for (double h : s.hist)
    total += h;
  double width = (s.hi - s.lo) / kBins;
  for (int b = 0; b < kBins; ++b) {
    seen += s.hist[b];
    if (seen >= fraction * total)
      return s.lo + (b + 1) * width;
  }
  return s.hi;
}

/// The |x| threshold whose quantization to `levels` steps loses the least
/// information (Kullback-Leibler divergence of the clipped histogram's
/// quantized form from it).
float entropyThreshold(const Stats &s, int levels) {
  const std::vector<double> &h = s.hist;
  double best = std::numeric_limits<double>::infinity();
  int bestBins = kBins;
  std::vector<double> p, q;
  for (int bins = levels; bins <= kBins; ++bins) {
    // p: the first `bins` bins, the mass beyond folded into the last.
    p.assign(h.begin(), h.begin() + bins);
    for (int b = bins; b < kBins; ++b)
      p[bins - 1] += h[b];
    // q: the first `bins` bins merged into `levels` steps, each step's mass
    // spread over its nonzero bins.
    q.assign(bins, 0);
    for (int l = 0; l < levels; ++l) {
      int b0 = l * bins / levels, b1 = (l + 1) * bins / levels;
      double mass = 0;
      int nonzero = 0;
      for (int b = b0; b < b1; ++b) {
        mass += h[b];
        nonzero += h[b] != 0;
      }
      for (int b = b0; b < b1; ++b)
        q[b] = h[b] != 0 ? mass / nonzero : 0;
    }
    double pTotal = 0, qTotal = 0;
    for (int b = 0; b < bins; ++b) {
      pTotal += p[b];
      qTotal += q[b];
    }
    if (pTotal == 0 || qTotal == 0)
      continue;
    double kl = 0;
    for (int b = 0; b < bins; ++b) {
      if (p[b] == 0)
        continue;
      double pp = p[b] / pTotal, qq = q[b] / qTotal;
      // (a bin q lost entirely costs as if it kept a little)
      kl += pp * std::log(pp / std::max(qq, 1e-12));
    }
    if (kl < best) {
      best = kl;
      bestBins = bins;
    }
  }
  return (bestBins + 0.5f) * s.top / kBins;
}

} // namespace

llvm::Expected<std::map<std::string, onnx::ActivationRange>>
calibrate(const std::string &library, const std::vector<std::string> &names,
          const CalibrationOptions &options, int64_t &samples) {
  auto runner = Runner::open(library);
  if (!runner)
    return runner.takeError();
  Runner &r = **runner;
  auto files = sampleFiles(options.sources);
  if (!files)
    return files.takeError();
  std::map<std::string, Stats> stats;
  auto visit = [&](const float *batch, bool second) -> llvm::Error {
    for (const std::string &name : names) {
      int64_t n = r.shape[0] * r.sampleSize;
      const float *v = name == r.inputName ? batch : r.output(name, n);
      if (!v)
        return error("the calibration library has no float output '" + name +
                     "'");
      Stats &s = stats[name];
      if (!second)
        s.range(v, n);
      else
        s.histogram(v, n, options.method == "entropy");
    }
    return llvm::Error::success();
  };
  auto ran = forEachBatch(
      r, *files, -1, [&](const float *batch) { return visit(batch, false); });
  if (!ran)
    return ran.takeError();
  samples = *ran;
  if (options.method != "minmax") {
    auto again = forEachBatch(
        r, *files, -1, [&](const float *batch) { return visit(batch, true); });
    if (!again)
      return again.takeError();
  }
  std::map<std::string, onnx::ActivationRange> ranges;
  for (const std::string &name : names) {
    Stats &s = stats[name];
    onnx::ActivationRange range{s.lo, s.hi};
    if (!std::isfinite(s.lo) || !std::isfinite(s.hi))
      range = {0, 0};
    else if (options.method == "percentile" && !s.hist.empty())
      range = {quantile(s, 1 - options.percentile / 100),
               quantile(s, options.percentile / 100)};
    else if (options.method == "entropy" && !s.hist.empty()) {
      float t = entropyThreshold(s, s.lo >= 0 ? 255 : 127);
      range = {std::max(s.lo, -t), std::min(s.hi, t)};
    }
    ranges[name] = range;
  }
  return ranges;
}

llvm::Expected<std::vector<std::pair<std::string, double>>> activationErrors(
    const std::string &floatLibrary, const std::string &quantizedLibrary,
    const std::vector<std::string> &names, const CalibrationOptions &options) {
  auto f = Runner::open(floatLibrary);
  if (!f)
    return f.takeError();
  auto q = Runner::open(quantizedLibrary);
  if (!q)
    return q.takeError();
  auto files = sampleFiles(options.sources);
  if (!files)
    return files.takeError();
  std::vector<std::pair<std::string, double>> errors;
  auto ran =
      forEachBatch(**f, *files, 1, [&](const float *batch) -> llvm::Error {
        std::vector<float> copy(batch,
                                batch + (*q)->shape[0] * (*q)->sampleSize);
        if (llvm::Error e = (*q)->run(copy.data()))
          return e;
        for (const std::string &name : names) {
          int64_t nf = 0, nq = 0;
          const float *vf = (*f)->output(name, nf),
                      *vq = (*q)->output(name, nq);
          if (!vf || !vq || nf != nq)
            continue; // (a graph input)
          double diff = 0, norm = 0;
          for (int64_t i = 0; i < nf; ++i) {
            diff += double(vq[i] - vf[i]) * (vq[i] - vf[i]);
            norm += double(vf[i]) * vf[i];
          }
          errors.emplace_back(name, norm > 0 ? std::sqrt(diff / norm) : 0.0);
        }
        return llvm::Error::success();
      });
  if (!ran)
    return ran.takeError();
  return errors;
}

llvm::Error quantizeModel(CompileOptions &options,
                          const onnx::QuantizeSpec &spec,
                          const CalibrationOptions &calibration, bool report,
                          const std::string &workDir) {
  auto in = [&](const char *name) {
    llvm::SmallString<256> path(workDir);
    llvm::sys::path::append(path, name);
    return std::string(path);
  };
  // A float library of the same options (the input shapes, bindings, ...)
  // with the activations as outputs.
  auto floatLibrary = [&](const std::string &model, const std::string &lib) {
    CompileOptions c = options;
    c.modelPath = model;
    c.outputPath = lib;
    c.emit = EmitKind::SharedLibrary;
    c.modelName = "calibration";
    c.quiet = true;
    c.summary = false;
    c.weightsFile = false;
    c.printIRAfterAll = false;
    c.timePasses = false;
    c.printMemoryPlan = false;
    c.memoryPlanJson.clear();
    return compile(c);
  };
  // An MXNet model is quantized as its ONNX form.
  if (llvm::sys::path::extension(options.modelPath) != ".onnx") {
    if (llvm::Error e =
            onnx::writeMxnetAsOnnx(options.modelPath, options.paramsPath,
                                   options.inputShapes, in("model.onnx")))
      return e;
    options.modelPath = in("model.onnx");
    options.paramsPath.clear();
  }
  auto names = onnx::quantizedActivations(options.modelPath, spec,
                                          in("calibration.onnx"));
  if (!names)
    return names.takeError();
  if (llvm::Error e =
          floatLibrary(in("calibration.onnx"), in("libcalibration.so")))
    return e;
  int64_t samples = 0;
  auto ranges =
      calibrate(in("libcalibration.so"), *names, calibration, samples);
  if (!ranges)
    return ranges.takeError();
  if (llvm::Error e = onnx::writeQuantizedModel(options.modelPath, spec,
                                                *ranges, in("quantized.onnx")))
    return e;
  if (!options.quiet)
    llvm::errs() << "mxc: note: " << names->size()
                 << " activations quantized to uint8, calibrated on " << samples
                 << " samples (" << calibration.method << ")\n";
  if (report) {
    if (llvm::Error e = onnx::writeQuantizedModel(
            options.modelPath, spec, *ranges, in("report.onnx"), true))
      return e;
    if (llvm::Error e = floatLibrary(in("report.onnx"), in("libreport.so")))
      return e;
    auto errors = activationErrors(in("libcalibration.so"), in("libreport.so"),
                                   *names, calibration);
    if (!errors)
      return errors.takeError();
    llvm::errs() << "activation | range | scale | zero point | error vs "
                    "float (first batch)\n";
    for (const std::string &name : *names) {
      const onnx::ActivationRange &r = ranges->at(name);
      auto [scale, zero] = onnx::uint8Quantization(r);
      llvm::errs() << name << " | [" << llvm::format("%.4g", r.lo) << ", "
                   << llvm::format("%.4g", r.hi) << "] | "
                   << llvm::format("%.4g", scale) << " | " << zero << " | ";
      auto it = llvm::find_if(*errors,
                              [&](const auto &e) { return e.first == name; });
      if (it == errors->end())
        llvm::errs() << "(input)\n";
      else
        llvm::errs() << llvm::format("%.2f%%", 100 * it->second) << "\n";
    }
  }
  options.modelPath = in("quantized.onnx");
  return llvm::Error::success();
}

} // namespace mxc
