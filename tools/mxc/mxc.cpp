// SPDX-License-Identifier: Apache-2.0
// mxc: compiles a model file into a native library and C header. A thin
// command line over compiler/driver; every user error is one line on stderr
// and exit code 1, with nothing left at the output path.
#include "Calibrate.h"
#include "compiler/codegen/Codegen.h"
#include "compiler/driver/Compiler.h"
#include "compiler/frontends/onnx/FromMxnet.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Pass.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

namespace cl = llvm::cl;

static cl::OptionCategory category("mxc options");

static cl::opt<std::string> modelPath(cl::Positional, cl::desc("MODEL.json"),
                                      cl::Required, cl::cat(category));
static cl::opt<std::string>
    paramsPath("params", cl::desc("MXNet .params file with the weights"),
               cl::value_desc("FILE"), cl::cat(category));
static cl::list<std::string>
    inputs("input",
           cl::desc("Shape of a graph input, e.g. data=1x3x32x32; ONNX "
                    "sequences: x=seq(2x3,4); empty optionals: x=none"),
           cl::value_desc("NAME=SHAPE"), cl::cat(category));
static cl::list<std::string>
    dims("dim",
         cl::desc("Bounds of a dynamic dimension, e.g. N=1..64 (from "
                  "--input data=Nx3x224x224 or an ONNX dim_param); "
                  "default 1 and up, unbounded"),
         cl::value_desc("NAME=MIN..MAX"), cl::cat(category));
static cl::opt<std::string>
    buckets("buckets",
            cl::desc("Batch extents a dynamic batch dimension is compiled "
                     "for (default 1,8,64 up to its bound); a call runs "
                     "its rows through them, largest first"),
            cl::value_desc("B,B,..."), cl::cat(category));
static cl::list<std::string>
    binds("bind",
          cl::desc("Bind an ONNX graph input to a constant at compile time "
                   "(a serialized TensorProto), e.g. shape=shape.pb"),
          cl::value_desc("NAME=FILE.pb"), cl::cat(category));
static cl::opt<std::string>
    outputPath("o",
               cl::desc("Output file (lib<name>.so, .a, .o, .s, .ll, .mlir, "
                        ".h, .dot)"),
               cl::value_desc("OUT"), cl::cat(category));
static cl::opt<std::string>
    emit("emit",
         cl::desc("What to write: mlir|llvm|asm|obj|so|a|header|dot, or onnx "
                  "(an MXNet model as ONNX) (default: from -o)"),
         cl::cat(category));
static cl::opt<std::string>
    weights("weights",
            cl::desc("Where a shared library keeps its weights: embed (in "
                     "the library; default) or file (<library "
                     "stem>.weights beside it, mapped when the model is "
                     "opened; ship both)"),
            cl::init("embed"), cl::cat(category));
static cl::opt<bool> quiet("quiet",
                           cl::desc("No notes and no progress line on stderr "
                                    "(a terminal gets one per stage); errors "
                                    "only"),
                           cl::cat(category));
static cl::opt<bool>
    summary("summary",
            cl::desc("Print a table of the layers (output shape, parameters, "
                     "multiply-accumulates) after the graph passes; without "
                     "-o, only that"),
            cl::cat(category));
static cl::opt<std::string>
    modelName("name", cl::desc("Symbol prefix of the model (default: from -o)"),
              cl::cat(category));
static cl::opt<std::string>
    triple("triple",
           cl::desc("Target triple: x86_64-linux-gnu or aarch64-linux-gnu "
                    "(default: the host's; docs/arm.md)"),
           cl::cat(category));
static cl::opt<std::string>
    mcpu("mcpu",
         cl::desc("Target CPU (default: the host CPU; generic for another "
                  "triple's)"),
         cl::cat(category));
static cl::opt<std::string>
    mattr("mattr",
          cl::desc("Target features on top of the CPU's, e.g. "
                   "+sve,+dotprod,+i8mm,+bf16"),
          cl::cat(category));
static cl::opt<std::string> runtimeDir(
    "runtime-dir",
    cl::desc("Folder of the target's libmxrt.so for shared libraries "
             "(default: mxc's own; for another triple, LIB/TRIPLE beside "
             "it)"),
    cl::cat(category));
static cl::opt<unsigned> optLevel("O",
                                  cl::desc("LLVM optimization level (0-3)"),
                                  cl::init(3), cl::Prefix, cl::cat(category));
static cl::opt<std::string> memoryPlan(
    "memory-plan",
    cl::desc("Memory planning: naive|inplace|coshare|both|best (default best)"),
    cl::init("best"), cl::cat(category));
static cl::opt<bool>
    printMemoryPlan("print-memory-plan",
                    cl::desc("Print every strategy's arena size, the lower "
                             "bound and each buffer's offset/size/lifetime"),
                    cl::cat(category));
static cl::opt<std::string>
    memoryPlanJson("memory-plan-json",
                   cl::desc("Write the memory plan report as JSON"),
                   cl::value_desc("FILE"), cl::cat(category));
static cl::opt<bool>
    writeDepfile("MD",
                 cl::desc("Also write a Make-style dependency file naming "
                          "what the output was made from (the model, "
                          "--params, --bind files, mxc itself), for Ninja "
                          "and Make: <OUT>.d, or -MF's"),
                 cl::cat(category));
static cl::opt<std::string> depfilePath("MF", cl::desc("-MD's dependency file"),
                                        cl::value_desc("FILE"),
                                        cl::cat(category));
static cl::opt<bool>
    printIRAfterAll("print-ir-after-all",
                    cl::desc("Print the IR after every MLIR pass"),
                    cl::cat(category));

static cl::opt<bool>
    noFusion("no-fusion",
             cl::desc("Do not fuse operators: no elementwise fusion, no "
                      "kernel epilogues, no BatchNorm folded into "
                      "convolution weights (plans memory for the graph as "
                      "the frontend gives it)"),
             cl::cat(category));
static cl::opt<bool>
    noKernels("no-kernels",
              cl::desc("Compile contractions (FullyConnected, Convolution, "
                       "dot) to generated loops instead of calls into the "
                       "runtime's GEMM"),
              cl::cat(category));
static cl::opt<int64_t> parallelMinWork(
    "parallel-min-work",
    cl::desc("Smallest loop (operations executed, counting trip counts) "
             "that runs on the instance's thread pool; 0: every outermost "
             "parallel loop (default 131072)"),
    cl::init(131072), cl::cat(category));
static cl::opt<std::string> kvCache(
    "kv-cache",
    cl::desc("A decoder's key/value caches (inputs past... that a Concat "
             "extends, outputs present...): copy (the export's form: each "
             "step copies the past into the present; default) or in-place "
             "(each cache one buffer holding its dimension's bound of "
             "positions, appended to in place, the filled length an input "
             "<dimension>_length; needs --dim past=0..N)"),
    cl::init("copy"), cl::cat(category));
static cl::opt<std::string> convLayout(
    "conv-layout",
    cl::desc("Layout of the convolutions' activations: auto (chains of "
             "convolutions the NHWC kernels run faster channels last, the "
             "rest NCHW; default), nhwc (every convolution, and with --train "
             "every convolution gradient) or nchw"),
    cl::init("auto"), cl::cat(category));
static cl::opt<std::string>
    target("target",
           cl::desc("What the library runs on: cpu (default) or cuda (NVIDIA "
                    "GPUs; docs/cuda.md)"),
           cl::init("cpu"), cl::cat(category));
static cl::list<std::string>
    gpuArch("gpu-arch",
            cl::desc("--target=cuda: GPU architectures, the machine code and "
                     "PTX of each in the library (default sm_90)"),
            cl::CommaSeparated, cl::cat(category));
static cl::OptionCategory trainCategory("mxc training options (--train)");
static cl::opt<bool> train(
    "train",
    cl::desc("Build a training library: forward, grad (outputs and parameter "
             "gradients) and train_step (one optimizer step in place)"),
    cl::cat(trainCategory));
static cl::opt<std::string>
    optimizer("optimizer", cl::desc("sgd|momentum|adam|rmsprop (default sgd)"),
              cl::init("sgd"), cl::cat(trainCategory));
static cl::opt<double> wd("wd", cl::desc("Weight decay (default 0)"),
                          cl::init(0.0), cl::cat(trainCategory));
static cl::opt<double> momentum("momentum",
                                cl::desc("Momentum of --optimizer momentum "
                                         "(default 0.9)"),
                                cl::init(0.9), cl::cat(trainCategory));
static cl::opt<double> beta1("beta1", cl::desc("Adam's beta1 (default 0.9)"),
                             cl::init(0.9), cl::cat(trainCategory));
static cl::opt<double> beta2("beta2", cl::desc("Adam's beta2 (default 0.999)"),
                             cl::init(0.999), cl::cat(trainCategory));
static cl::opt<double>
    epsilon("epsilon", cl::desc("Adam's / RMSProp's epsilon (default 1e-8)"),
            cl::init(1e-8), cl::cat(trainCategory));
static cl::opt<double> rho("rho", cl::desc("RMSProp's decay (default 0.9)"),
                           cl::init(0.9), cl::cat(trainCategory));
static cl::opt<double>
    rescaleGrad("rescale-grad",
                cl::desc("Factor on every gradient (default 1/batch, as "
                         "MXNet's Module with SoftmaxOutput's summed loss)"),
                cl::init(0.0), cl::cat(trainCategory));
static cl::opt<double>
    clipGradient("clip-gradient",
                 cl::desc("Clip gradients to [-C, C] (default: no clipping)"),
                 cl::init(-1.0), cl::cat(trainCategory));
static cl::list<std::string>
    gradWrt("grad-wrt", cl::CommaSeparated,
            cl::desc("Learn only these parameters (default: all)"),
            cl::value_desc("NAME,..."), cl::cat(trainCategory));

static cl::opt<std::string>
    loss("loss",
         cl::desc("Put a loss head on every output of a model that ends at "
                  "them (Gluon and ONNX exports): softmax-ce (label "
                  "softmax_label, class indices), l2, l1 or sigmoid-bce "
                  "(label softmax_label, the output's shape)"),
         cl::value_desc("softmax-ce|l2|l1|sigmoid-bce"),
         cl::cat(trainCategory));

static cl::opt<uint64_t>
    initSeed("seed",
             cl::desc("Without --params: seed of the initial parameters "
                      "(Xavier uniform weights, zero biases; default 0)"),
             cl::init(0), cl::cat(trainCategory));

static cl::OptionCategory quantizeCategory(
    "mxc quantization and precision options (docs/quantization.md)");

static cl::opt<std::string>
    quantize("quantize",
             cl::desc("Quantize a float ONNX or MXNet model's convolutions, "
                      "matrix products and residual additions to 8-bit "
                      "integers (int8 weights per channel, uint8 "
                      "activations), calibrated on --calibrate's samples"),
             cl::value_desc("int8"), cl::cat(quantizeCategory));

static cl::list<std::string>
    calibrate("calibrate",
              cl::desc("Samples of the model's input for --quantize: .npy "
                       "files or directories of them, samples stacked "
                       "along the first axis; NAME=DIR|FILE.npy for input "
                       "NAME of a model of several"),
              cl::value_desc("[NAME=]DIR|FILE.npy"), cl::CommaSeparated,
              cl::cat(quantizeCategory));

static cl::opt<std::string> calibration(
    "calibration",
    cl::desc("How --quantize picks an activation's range from the samples: "
             "minmax (all values), percentile (--percentile's share) or "
             "entropy (least Kullback-Leibler divergence); default minmax"),
    cl::value_desc("minmax|percentile|entropy"), cl::init("minmax"),
    cl::cat(quantizeCategory));

static cl::opt<double>
    percentile("percentile",
               cl::desc("--calibration=percentile's share (default 99.99)"),
               cl::init(99.99), cl::cat(quantizeCategory));

static cl::opt<std::string> precision(
    "precision",
    cl::desc("The float matrix products' and convolutions' precision: fp32, "
             "or bf16 (operands rounded to bfloat16, float32 sums; "
             "vdpbf16ps on AVX-512 BF16)"),
    cl::value_desc("fp32|bf16"), cl::init("fp32"), cl::cat(quantizeCategory));

static cl::list<std::string> quantizeExclude(
    "quantize-exclude",
    cl::desc("Leave these nodes (by name) or operator types in float"),
    cl::value_desc("NAME|OP,..."), cl::CommaSeparated,
    cl::cat(quantizeCategory));

static cl::opt<bool> quantizeReport(
    "quantize-report",
    cl::desc("Print each quantized activation's range, scale, zero point "
             "and error against float on the first batch (stderr)"),
    cl::cat(quantizeCategory));

static int fail(const llvm::Twine &message) {
  mxc::compileStage(""); // clears a progress line
  llvm::WithColor::error(llvm::errs(), "mxc") << message << "\n";
  return 1;
}

/// A --calibrate entry as (input name, path): NAME=PATH names the input
/// (unless the whole entry is a path that exists), PATH alone is the
/// model's one input's ("").
static std::pair<std::string, std::string>
calibrationInput(llvm::StringRef entry) {
  auto [name, path] = entry.split('=');
  if (path.empty() || name.empty() || llvm::sys::fs::exists(entry))
    return {"", entry.str()};
  return {name.str(), path.str()};
}

/// A Make rule "target: sources..." (Ninja reads the same), spaces and
/// '#' escaped with a backslash and '$' doubled.
static std::string makeDependencies(const std::string &target,
                                    const std::vector<std::string> &sources) {
  auto escape = [](llvm::StringRef path) {
    std::string out;
    for (char c : path) {
      if (c == ' ' || c == '#')
        out += '\\';
      if (c == '$')
        out += '$';
      out += c;
    }
    return out;
  };
  std::string rule = escape(target) + ":";
  for (const std::string &source : sources)
    rule += " \\\n  " + escape(source);
  return rule + "\n";
}

/// For --triple: what linking a library for another machine needs, checked
/// before the compile (the target's libmxrt.so and C library, for shared
/// libraries; a static archive or object needs neither).
static llvm::Error crossTarget(mxc::CompileOptions &options,
                               llvm::StringRef libDir) {
  llvm::Triple host(llvm::sys::getDefaultTargetTriple());
  llvm::Triple want(llvm::Triple::normalize(triple));
  if (want.getArch() == host.getArch())
    return llvm::Error::success();
  if (target != "cpu")
    return llvm::createStringError("--triple=" + triple +
                                   ": only --target=cpu libraries are "
                                   "cross-compiled");
  if (options.emit != mxc::EmitKind::SharedLibrary)
    return llvm::Error::success();
  // Debian's multiarch name: aarch64-linux-gnu.
  std::string name = (want.getArchName() + "-linux-gnu").str();
  std::string dir = runtimeDir;
  if (dir.empty()) {
    llvm::SmallString<256> beside(libDir);
    llvm::sys::path::append(beside, name);
    dir = std::string(beside);
  }
  llvm::SmallString<256> lib(dir);
  llvm::sys::path::append(lib, "libmxrt.so");
  if (!llvm::sys::fs::exists(lib))
    return llvm::createStringError(
        "--triple=" + triple + ": no libmxrt.so for " + name + " in " + dir +
        " (build the runtime with cmake/toolchains/" + name +
        ".cmake and give --runtime-dir, or write a static archive: -o X.a)");
  options.codegen.runtimeLibDir = dir;
  for (std::string candidate :
       {"/usr/" + name + "/lib", "/usr/lib/" + name, "/lib/" + name})
    if (llvm::sys::fs::exists(candidate + "/libc.so"))
      options.codegen.systemLibDirs.push_back(candidate);
  if (options.codegen.systemLibDirs.empty())
    return llvm::createStringError(
        "--triple=" + triple + ": no C library for " + name + " in /usr/" +
        name + "/lib or /usr/lib/" + name +
        " (Debian: apt-get install crossbuild-essential-arm64)");
  return llvm::Error::success();
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  mlir::registerAsmPrinterCLOptions();
  mlir::registerMLIRContextCLOptions();
  mlir::registerPassManagerCLOptions();
  cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    os << "mxc " MXC_VERSION " (LLVM/MLIR " LLVM_VERSION_STRING ")\n";
  });
  // LLVM's own -time-passes (its passes' times), shown as one of mxc's:
  // mxc adds each stage's wall time and MLIR's per-pass times.
  if (cl::Option *timePasses =
          cl::getRegisteredOptions().lookup("time-passes")) {
    timePasses->addCategory(category);
    timePasses->setHiddenFlag(cl::NotHidden);
    timePasses->setDescription(
        "Print each stage's wall time (import, graph passes, lowering, "
        "LLVM), MLIR's and LLVM's per-pass times to stderr");
  }
  cl::HideUnrelatedOptions({&category, &trainCategory, &quantizeCategory});
  cl::ParseCommandLineOptions(
      argc, argv, "mxc: compile MXNet models into native libraries\n");

  mxc::CompileOptions options;
  options.modelPath = modelPath;
  options.paramsPath = paramsPath;
  options.outputPath = outputPath;
  options.summary = summary;
  options.timePasses = llvm::TimePassesIsEnabled;
  options.quiet = quiet;
  if (outputPath.empty() && !summary)
    return fail("no output: give -o OUT (or --summary alone)");
  options.modelName = modelName;
  options.codegen.triple = triple;
  options.codegen.cpu = mcpu;
  options.codegen.features = mattr;
  // A bad triple, CPU or feature fails here, not after the graph passes.
  if (llvm::Error err = mxc::checkTarget(options.codegen))
    return fail(llvm::toString(std::move(err)));
  if (optLevel > 3)
    return fail("-O" + llvm::Twine(optLevel.getValue()) +
                ": the optimization level must be 0-3");
  options.codegen.optLevel = optLevel;
  options.printIRAfterAll = printIRAfterAll;
  if (weights != "embed" && weights != "file")
    return fail("--weights=" + weights + ": expected embed or file");
  options.weightsFile = weights == "file";
  if (!llvm::is_contained({"naive", "inplace", "coshare", "both", "best"},
                          memoryPlan.getValue()))
    return fail("--memory-plan=" + memoryPlan +
                ": expected naive, inplace, coshare, both or best");
  options.memoryPlan = memoryPlan;
  options.printMemoryPlan = printMemoryPlan;
  options.memoryPlanJson = memoryPlanJson;
  options.fusion = !noFusion;
  options.kernels = !noKernels;
  if (parallelMinWork < 0) {
    llvm::errs() << "mxc: error: --parallel-min-work must be >= 0, got "
                 << parallelMinWork << "\n";
    return 1;
  }
  options.parallelMinWork = parallelMinWork;
  if (!llvm::is_contained({"auto", "nhwc", "nchw"}, convLayout.getValue()))
    return fail("--conv-layout=" + convLayout +
                ": expected auto, nhwc or nchw");
  options.convLayout = convLayout;
  if (precision != "fp32" && precision != "bf16")
    return fail("--precision=" + precision + ": expected fp32 or bf16");
  if (precision == "bf16" && (train || target != "cpu"))
    return fail("--precision=bf16 makes CPU inference libraries; not with " +
                llvm::Twine(train ? "--train" : "--target=" + target));
  options.precision = precision;
  if (!llvm::is_contained({"copy", "in-place"}, kvCache.getValue()))
    return fail("--kv-cache=" + kvCache + ": expected copy or in-place");
  options.kvCacheInPlace = kvCache == "in-place";
  if (options.kvCacheInPlace && target != "cpu")
    return fail("--kv-cache=in-place: --target=" + target +
                " does not take in-place caches yet (only cpu)");
  options.target = target;
  if (!gpuArch.empty())
    options.gpuArchs.assign(gpuArch.begin(), gpuArch.end());
  options.train.enabled = train;
  options.train.optimizer = optimizer;
  options.train.wd = wd;
  options.train.momentum = momentum;
  options.train.beta1 = beta1;
  options.train.beta2 = beta2;
  options.train.epsilon = epsilon;
  options.train.rho = rho;
  options.train.rescaleGrad = rescaleGrad;
  options.train.clipGradient = clipGradient;
  options.train.gradWrt.assign(gradWrt.begin(), gradWrt.end());
  options.train.initSeed = initSeed;
  options.train.loss = loss;
  if (!train && (optimizer.getNumOccurrences() || wd.getNumOccurrences() ||
                 gradWrt.getNumOccurrences() || loss.getNumOccurrences()))
    return fail("--optimizer, --wd, --grad-wrt and --loss need --train");
  if (loss.getNumOccurrences() &&
      !llvm::is_contained({"softmax-ce", "l2", "l1", "sigmoid-bce"},
                          std::string(loss)))
    return fail("--loss '" + loss +
                "': expected softmax-ce, l2, l1 or sigmoid-bce");
  if (!llvm::is_contained({"sgd", "momentum", "adam", "rmsprop"},
                          std::string(optimizer)))
    return fail("--optimizer '" + optimizer +
                "': expected sgd, momentum, adam or rmsprop");
  options.configurePassManager = [](mlir::PassManager &pm) {
    return mlir::applyPassManagerCLOptions(pm);
  };

  if (!options.modelName.empty() && !mxc::isCIdentifier(options.modelName))
    return fail("--name '" + options.modelName +
                "' is not a C identifier (letters, digits, '_'; not starting "
                "with a digit)");
  if (options.outputPath != "-") {
    llvm::StringRef dir = llvm::sys::path::parent_path(options.outputPath);
    if (!dir.empty() && !llvm::sys::fs::is_directory(dir))
      return fail("cannot write '" + options.outputPath + "': directory '" +
                  dir + "' does not exist");
    if (llvm::sys::fs::is_directory(options.outputPath))
      return fail("cannot write '" + options.outputPath + "': Is a directory");
  }
  if (!llvm::sys::fs::exists(options.modelPath))
    return fail("'" + options.modelPath + "': no such file");
  if (!options.paramsPath.empty() && !llvm::sys::fs::exists(options.paramsPath))
    return fail("'" + options.paramsPath + "': no such file");
  for (const std::string &spec : inputs) {
    auto [name, shape] = llvm::StringRef(spec).split('=');
    if (name.empty() || !llvm::StringRef(spec).contains('='))
      return fail("--input '" + spec +
                  "': expected NAME=SHAPE, e.g. data=1x3x32x32");
    if (options.inputShapes.count(name.str()) ||
        options.symbolicInputs.count(name.str()) ||
        options.sequenceInputs.count(name.str()) ||
        options.absentInputs.count(name.str()))
      return fail("--input '" + name + "' is given twice");
    // ONNX optionals without a value, and sequences: seq(SHAPE,SHAPE,...).
    if (shape == "none") {
      options.absentInputs.insert(name.str());
      continue;
    }
    if (shape.starts_with("seq(") && shape.ends_with(")")) {
      llvm::StringRef list = shape.drop_front(4).drop_back();
      std::vector<std::vector<int64_t>> elements;
      llvm::SmallVector<llvm::StringRef> parts;
      if (!list.empty())
        list.split(parts, ',');
      for (llvm::StringRef part : parts) {
        auto dims = mxc::parseShape(part.trim());
        if (!dims)
          return fail("--input '" + spec + "': element " +
                      llvm::Twine(elements.size()) + ": " +
                      llvm::toString(dims.takeError()));
        elements.push_back(*dims);
      }
      options.sequenceInputs.emplace(name.str(), std::move(elements));
      continue;
    }
    auto axes = mxc::parseSymbolicShape(shape);
    if (!axes)
      return fail("--input '" + spec +
                  "': " + llvm::toString(axes.takeError()));
    auto dims = mxc::parseShape(shape);
    if (dims)
      options.inputShapes.emplace(name.str(), *dims);
    else {
      llvm::consumeError(dims.takeError());
      options.symbolicInputs.emplace(name.str(), *axes);
    }
  }
  for (const std::string &spec : dims) {
    auto [name, text] = llvm::StringRef(spec).split('=');
    if (name.empty() || !llvm::StringRef(spec).contains('='))
      return fail("--dim '" + spec + "': expected NAME=MIN..MAX, e.g. N=1..64");
    auto bounds = mxc::parseDimBounds(text);
    if (!bounds)
      return fail("--dim '" + spec +
                  "': " + llvm::toString(bounds.takeError()));
    if (!options.dimBounds.emplace(name.str(), *bounds).second)
      return fail("--dim '" + name + "' is given twice");
  }
  if (!buckets.empty()) {
    llvm::SmallVector<llvm::StringRef> parts;
    llvm::StringRef(buckets).split(parts, ',');
    for (llvm::StringRef part : parts) {
      int64_t b;
      if (part.trim().getAsInteger(10, b) || b < 1 || b > 4096 ||
          (!options.buckets.empty() && b <= options.buckets.back()))
        return fail("--buckets '" + buckets +
                    "': expected increasing extents from 1 to 4096, e.g. "
                    "1,8,64");
      options.buckets.push_back(b);
    }
    if (options.buckets.front() != 1)
      return fail("--buckets '" + buckets +
                  "': the first extent must be 1 (every batch size is made "
                  "of them)");
  }

  for (const std::string &spec : binds) {
    auto [name, path] = llvm::StringRef(spec).split('=');
    if (name.empty() || path.empty())
      return fail("--bind '" + spec + "': expected NAME=FILE.pb");
    if (!llvm::sys::fs::exists(path))
      return fail("--bind '" + spec + "': '" + path + "': no such file");
    if (!options.boundInputs.emplace(name.str(), path.str()).second)
      return fail("--bind '" + name + "' is given twice");
  }

  // --emit=onnx (or -o FILE.onnx): an MXNet model written as ONNX; nothing
  // is compiled.
  if (emit == "onnx" ||
      (emit.empty() && llvm::sys::path::extension(outputPath) == ".onnx")) {
    if (llvm::sys::path::extension(modelPath) == ".onnx")
      return fail("--emit=onnx converts MXNet models; '" + modelPath +
                  "' is ONNX already");
    if (outputPath.empty() || outputPath == "-")
      return fail("--emit=onnx writes a file: give -o FILE.onnx");
    if (!quantize.empty() || train || target != "cpu")
      return fail("--emit=onnx writes the MXNet model as it is; not with "
                  "--quantize, --train or --target");
    if (llvm::Error err = mxc::onnx::writeMxnetAsOnnx(
            modelPath, paramsPath, options.inputShapes, outputPath))
      return fail(llvm::toString(std::move(err)));
    return 0;
  }
  if (options.outputPath.empty()) {
    options.emit = mxc::EmitKind::MLIR; // nothing is written
  } else if (emit.empty()) {
    auto kind = mxc::emitKindForPath(options.outputPath);
    if (!kind)
      return fail("cannot tell what to write from '" + options.outputPath +
                  "'; use --emit=mlir|llvm|asm|obj|so|a|header|dot|onnx");
    options.emit = *kind;
  } else {
    static const std::pair<const char *, mxc::EmitKind> kinds[] = {
        {"mlir", mxc::EmitKind::MLIR},
        {"llvm", mxc::EmitKind::LLVMIR},
        {"obj", mxc::EmitKind::Object},
        {"so", mxc::EmitKind::SharedLibrary},
        {"a", mxc::EmitKind::StaticArchive},
        {"header", mxc::EmitKind::Header},
        {"asm", mxc::EmitKind::Assembly},
        {"dot", mxc::EmitKind::Dot}};
    bool found = false;
    for (auto &[text, kind] : kinds)
      if (emit == text) {
        options.emit = kind;
        found = true;
      }
    if (!found)
      return fail(
          "--emit=" + emit +
          ": expected mlir, llvm, asm, obj, so, a, header, dot or onnx");
  }

  if (options.outputPath == "-" &&
      (options.emit == mxc::EmitKind::SharedLibrary ||
       options.emit == mxc::EmitKind::StaticArchive ||
       options.emit == mxc::EmitKind::Object))
    return fail("-o -: only text outputs (mlir, llvm, header) go to stdout");

  // libmxrt lives in ../lib beside bin/ (build tree and installs alike).
  std::string exe = llvm::sys::fs::getMainExecutable(argv[0], (void *)&fail);
  llvm::SmallString<256> libDir(
      llvm::sys::path::parent_path(llvm::sys::path::parent_path(exe)));
  llvm::sys::path::append(libDir, "lib");
  options.codegen.runtimeLibDir = std::string(libDir);

  std::string quantizeDir;
  llvm::scope_exit removeQuantizeDir([&] {
    if (!quantizeDir.empty())
      llvm::sys::fs::remove_directories(quantizeDir);
  });
  if (!quantize.empty() || !calibrate.empty() ||
      quantizeExclude.getNumOccurrences() || calibration.getNumOccurrences() ||
      quantizeReport) {
    if (quantize != "int8")
      return fail(quantize.empty()
                      ? llvm::Twine("--calibrate, --calibration, "
                                    "--quantize-exclude and --quantize-report "
                                    "need --quantize=int8")
                      : "--quantize=" + quantize + ": expected int8");
    if (calibrate.empty())
      return fail("--quantize=int8 needs samples: --calibrate DIR|FILE.npy");
    if (train || target != "cpu")
      return fail("--quantize=int8 makes CPU inference libraries; not with " +
                  llvm::Twine(train ? "--train" : "--target=" + target));
    if (!llvm::is_contained({"minmax", "percentile", "entropy"},
                            calibration.getValue()))
      return fail("--calibration=" + calibration +
                  ": expected minmax, percentile or entropy");
    if (!(percentile > 50 && percentile <= 100))
      return fail("--percentile=" + std::to_string(percentile.getValue()) +
                  ": expected a share above 50 and at most 100");
    llvm::SmallString<128> dir;
    if (std::error_code ec =
            llvm::sys::fs::createUniqueDirectory("mxc-quantize", dir))
      return fail("cannot make a work directory: " + ec.message());
    quantizeDir = std::string(dir);
    mxc::onnx::QuantizeSpec spec;
    spec.exclude.insert(quantizeExclude.begin(), quantizeExclude.end());
    mxc::CalibrationOptions cal;
    cal.method = calibration;
    cal.percentile = percentile;
    for (const std::string &source : calibrate)
      cal.sources[calibrationInput(source).first].push_back(
          calibrationInput(source).second);
    if (llvm::Error err =
            mxc::quantizeModel(options, spec, cal, quantizeReport, quantizeDir))
      return fail(llvm::toString(std::move(err)));
  }
  if (!triple.empty()) {
    if (llvm::Error err = crossTarget(options, libDir))
      return fail(llvm::toString(std::move(err)));
  } else if (!runtimeDir.empty()) {
    options.codegen.runtimeLibDir = runtimeDir;
  }
  if (llvm::Error err = mxc::compile(options))
    return fail(llvm::toString(std::move(err)));
  if ((writeDepfile || !depfilePath.empty()) && !options.outputPath.empty()) {
    std::vector<std::string> sources = {modelPath, exe};
    if (!paramsPath.empty())
      sources.push_back(paramsPath);
    for (const std::string &bind : binds)
      sources.push_back(bind.substr(bind.find('=') + 1));
    for (const std::string &source : calibrate)
      sources.push_back(calibrationInput(source).second);
    std::string path =
        depfilePath.empty() ? options.outputPath + ".d" : depfilePath;
    if (llvm::Error err = mxc::writeFileAtomically(
            path, makeDependencies(options.outputPath, sources)))
      return fail(llvm::toString(std::move(err)));
  }
  return 0;
}
