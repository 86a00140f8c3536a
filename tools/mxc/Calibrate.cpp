// SPDX-License-Identifier: Apache-2.0
// Calibration runs of mxc --quantize=int8 (Calibrate.h): the float model's
// library, compiled with the activations to quantize as outputs, opened
// with libmxrt and run on the samples a batch at a time.
#include "Calibrate.h"

#include "compiler/frontends/onnx/FromMxnet.h"

#include "mxrt/mxrt.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
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

/// One input of a compiled model: its batch buffer (the shape's first
/// extent of samples, back to back).
struct Input {
  std::string name;
  mxrt_dtype dtype = MXRT_F32;
  std::vector<int64_t> shape;
  int64_t sampleBytes = 0;
  std::vector<uint8_t> batch;
};

/// A compiled model opened for runs on batches of its inputs' samples.
class Runner {
public:
  static llvm::Expected<std::unique_ptr<Runner>> open(const std::string &path) {
    auto r = std::make_unique<Runner>();
    if (mxrt_model_open(path.c_str(), &r->model) != MXRT_OK)
      return error("'" + path + "': " + mxrt_last_error());
    for (int32_t i = 0; i < mxrt_model_num_inputs(r->model); ++i) {
      mxrt_tensor_info info;
      mxrt_model_input_info(r->model, i, &info);
      Input in;
      in.name = info.name;
      in.dtype = info.dtype;
      in.shape.assign(info.shape, info.shape + info.ndim);
      if (info.ndim < 1)
        return error("--calibrate: input '" + in.name + "' has no batch axis");
      if (i > 0 && in.shape[0] != r->inputs[0].shape[0])
        return error("--calibrate: inputs '" + r->inputs[0].name + "' and '" +
                     in.name + "' have batches of different sizes");
      in.sampleBytes = mxrt_dtype_size(in.dtype);
      for (int32_t d = 1; d < info.ndim; ++d)
        in.sampleBytes *= info.shape[d];
      in.batch.resize(in.shape[0] * in.sampleBytes);
      r->inputs.push_back(std::move(in));
    }
    if (r->inputs.empty())
      return error("--calibrate: the model has no inputs");
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
  int64_t batchSize() const { return inputs[0].shape[0]; }
  /// Runs one batch: the inputs' buffers.
  llvm::Error run() {
    std::vector<mxrt_tensor *> in;
    llvm::scope_exit release([&] {
      for (mxrt_tensor *t : in)
        mxrt_tensor_release(t);
    });
    for (Input &i : inputs) {
      mxrt_tensor *t = nullptr;
      if (mxrt_tensor_wrap(i.dtype, i.shape.size(), i.shape.data(),
                           i.batch.data(), &t) != MXRT_OK)
        return error(mxrt_last_error());
      in.push_back(t);
    }
    mxrt_status s =
        mxrt_instance_run(instance, in.data(), static_cast<int32_t>(in.size()),
                          outputs.data(), static_cast<int32_t>(outputs.size()));
    if (s != MXRT_OK)
      return error(llvm::Twine("the calibration run failed: ") +
                   mxrt_last_error());
    return llvm::Error::success();
  }
  /// Float input or output `name`'s values (after a run), or null.
  const float *values(const std::string &name, int64_t &count) {
    for (Input &i : inputs)
      if (i.name == name && i.dtype == MXRT_F32) {
        count = static_cast<int64_t>(i.batch.size() / sizeof(float));
        return reinterpret_cast<const float *>(i.batch.data());
      }
    return output(name, count);
  }
  /// Float output `name`'s values after a run, or null.
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
  std::vector<Input> inputs;
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

/// One input's samples, file after file, a sample at a time.
class Samples {
public:
  Samples(const Input &input, std::vector<std::string> files)
      : input(input), files(std::move(files)) {}

  /// Copies the next sample to `dst`; false after the last.
  llvm::Expected<bool> next(uint8_t *dst) {
    while (!tensor || at == count) {
      if (file == files.size())
        return false;
      if (llvm::Error e = load(files[file++]))
        return std::move(e);
    }
    const auto *data =
        static_cast<const uint8_t *>(mxrt_tensor_data(tensor.get()));
    std::memcpy(dst, data + at++ * input.sampleBytes, input.sampleBytes);
    return true;
  }

private:
  llvm::Error load(const std::string &path) {
    mxrt_tensor *t = nullptr;
    if (mxrt_tensor_load_npy(path.c_str(), &t) != MXRT_OK)
      return error("--calibrate '" + path + "': " + mxrt_last_error());
    tensor.reset(t);
    const int64_t *s = mxrt_tensor_shape(t);
    int32_t ndim = mxrt_tensor_ndim(t);
    const std::vector<int64_t> &shape = input.shape;
    // Samples stacked along the first axis, or one sample.
    int32_t lead = ndim == (int32_t)shape.size() ? 1 : 0;
    bool fits = mxrt_tensor_dtype(t) == input.dtype &&
                ndim + 1 - lead == (int32_t)shape.size();
    for (int32_t d = lead; fits && d < ndim; ++d)
      fits = s[d] == shape[d + 1 - lead];
    if (!fits) {
      std::string want = std::string(mxrt_dtype_name(input.dtype)) + " (N";
      for (size_t d = 1; d < shape.size(); ++d)
        want += "x" + std::to_string(shape[d]);
      return error("--calibrate '" + path + "': holds " +
                   mxrt_dtype_name(mxrt_tensor_dtype(t)) +
                   " samples that are not input '" + input.name +
                   "''s: expected " + want + ")");
    }
    count = lead ? s[0] : 1;
    at = 0;
    return llvm::Error::success();
  }

  const Input &input;
  std::vector<std::string> files;
  size_t file = 0;
  std::unique_ptr<mxrt_tensor, void (*)(mxrt_tensor *)> tensor{
      nullptr, mxrt_tensor_release};
  int64_t count = 0, at = 0;
};

/// Each input's samples, from `sources` (by input name; "" for the sources
/// of a model's one input).
llvm::Expected<std::vector<std::unique_ptr<Samples>>>
openSamples(const Runner &r, const CalibrationOptions &options) {
  std::map<std::string, std::vector<std::string>> sources = options.sources;
  std::string names;
  for (const Input &i : r.inputs)
    names += (names.empty() ? "'" : ", '") + i.name + "'";
  if (sources.count("") && r.inputs.size() > 1)
    return error("--calibrate: the model has inputs " + names +
                 ": give each its samples as --calibrate NAME=DIR|FILE.npy");
  if (sources.count(""))
    sources[r.inputs[0].name] = sources.extract("").mapped();
  std::vector<std::unique_ptr<Samples>> out;
  for (const Input &i : r.inputs) {
    auto it = sources.find(i.name);
    if (it == sources.end())
      return error("--calibrate: no samples of input '" + i.name +
                   "' (the model's inputs: " + names + ")");
    auto files = sampleFiles(it->second);
    if (!files)
      return files.takeError();
    out.push_back(std::make_unique<Samples>(i, std::move(*files)));
    sources.erase(it);
  }
  if (!sources.empty())
    return error("--calibrate: the model has no input '" +
                 sources.begin()->first + "' (its inputs: " + names + ")");
  return std::move(out);
}

/// Runs `r` on whole batches of the samples (at most `maxBatches`; -1: all),
/// calling `after()` after each run; returns the samples run. A remainder
/// smaller than a batch is left out; inputs with different numbers of
/// samples are an error (found where the first runs out).
llvm::Expected<int64_t> forEachBatch(Runner &r,
                                     const CalibrationOptions &options,
                                     int64_t maxBatches,
                                     llvm::function_ref<llvm::Error()> after) {
  auto samples = openSamples(r, options);
  if (!samples)
    return samples.takeError();
  int64_t batch = r.batchSize(), total = 0, batches = 0, filled = 0, read = 0;
  for (bool more = true; more && batches != maxBatches;) {
    std::vector<bool> got;
    for (size_t i = 0; i < r.inputs.size(); ++i) {
      Input &in = r.inputs[i];
      auto next =
          (*samples)[i]->next(in.batch.data() + filled * in.sampleBytes);
      if (!next)
        return next.takeError();
      got.push_back(*next);
    }
    more = got[0];
    for (size_t i = 1; i < got.size(); ++i)
      if (got[i] != got[0]) {
        size_t ended = got[i] ? 0 : i, other = got[i] ? i : 0;
        return error("--calibrate: input '" + r.inputs[ended].name + "' has " +
                     llvm::Twine(read) + " samples, input '" +
                     r.inputs[other].name + "' more");
      }
    if (!more)
      continue;
    ++read;
    if (++filled < batch)
      continue;
    if (llvm::Error e = r.run())
      return std::move(e);
    if (llvm::Error e = after())
      return std::move(e);
    total += batch;
    filled = 0;
    ++batches;
  }
  if (total == 0)
    return error("--calibrate: " + llvm::Twine(read) +
                 " samples, fewer than one batch of input '" +
                 r.inputs[0].name + "' (" + llvm::Twine(batch) + ")");
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
  std::map<std::string, Stats> stats;
  auto visit = [&](bool second) -> llvm::Error {
    for (const std::string &name : names) {
      int64_t n = 0;
      const float *v = r.values(name, n);
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
  auto ran = forEachBatch(r, options, -1, [&] { return visit(false); });
  if (!ran)
    return ran.takeError();
  samples = *ran;
  if (options.method != "minmax") {
    auto again = forEachBatch(r, options, -1, [&] { return visit(true); });
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
  std::vector<std::pair<std::string, double>> errors;
  auto ran = forEachBatch(**f, options, 1, [&]() -> llvm::Error {
    for (size_t i = 0; i < (*f)->inputs.size(); ++i)
      (*q)->inputs[i].batch = (*f)->inputs[i].batch;
    if (llvm::Error e = (*q)->run())
      return e;
    for (const std::string &name : names) {
      int64_t nf = 0, nq = 0;
      const float *vf = (*f)->output(name, nf), *vq = (*q)->output(name, nq);
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
    // It runs here, whatever the final library's target.
    c.codegen.triple.clear();
    c.codegen.cpu.clear();
    c.codegen.features.clear();
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
