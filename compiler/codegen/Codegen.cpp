// SPDX-License-Identifier: Apache-2.0
// LLVM-level code generation: the entry wrapper that unpacks the runtime's
// buffer array, the reflective table (laid out exactly as
// runtime/include/mxrt/model_abi.h), the typed C entry points, optimization,
// object emission and linking with ld.lld; the weights go beside the code
// (WeightsWriter.h) or, in .ll and .o outputs, into it.
#include "compiler/codegen/Codegen.h"
#include "compiler/codegen/CApi.h"
#include "compiler/codegen/DirectFileStream.h"
#include "compiler/codegen/LoopAlias.h"
#include "compiler/codegen/WeightsWriter.h"
#include "mxrt/model_abi.h"

#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Linker/Linker.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"
#include "llvm/Transforms/Utils/CodeExtractor.h"
#include "llvm/Transforms/Utils/SplitModule.h"

#ifndef MXC_LLD_PATH
#define MXC_LLD_PATH "ld.lld"
#endif
#ifndef MXC_SYSTEM_LIB_DIRS
#define MXC_SYSTEM_LIB_DIRS ""
#endif

#include <chrono>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

using namespace mxc;
using llvm::Twine;

namespace {

constexpr int64_t kModelAbiVersion = MXRT_MODEL_ABI_VERSION;

llvm::Error makeError(const Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// Builds the constants of the reflective table.
class TableBuilder {
public:
  TableBuilder(llvm::Module &m, const ModelSpec &spec)
      : m(m), ctx(m.getContext()), spec(spec), i64(llvm::Type::getInt64Ty(ctx)),
        ptr(llvm::PointerType::getUnqual(ctx)) {
    // mxrt_tensor_desc: name, dtype, ndim, shape, offset, size_bytes, flags.
    tensorDesc = llvm::StructType::create(
        ctx, {ptr, i64, i64, ptr, i64, i64, i64}, "mxrt_tensor_desc");
    // mxrt_function_desc: name, num_inputs, inputs, num_outputs, outputs,
    // entry, scratch_size, flags, num_variants, variants, batch_dim, shapes,
    // num_counts, counts.
    functionDesc = llvm::StructType::create(
        ctx,
        {ptr, i64, ptr, i64, ptr, ptr, i64, i64, i64, ptr, i64, ptr, i64, ptr},
        "mxrt_function_desc");
    // mxrt_variant_desc: batch, entry, scratch_size.
    variantDesc =
        llvm::StructType::create(ctx, {i64, ptr, i64}, "mxrt_variant_desc");
    // mxrt_dim_desc: name, min, max, flags.
    dimDesc =
        llvm::StructType::create(ctx, {ptr, i64, i64, i64}, "mxrt_dim_desc");
    // mxrt_model_desc: abi_version, name, num_functions, functions,
    // num_params, params, weights, weights_size, num_states, states, flags,
    // weights_file, weights_hash, num_dims, dims.
    modelDesc =
        llvm::StructType::create(ctx,
                                 {i64, ptr, i64, ptr, i64, ptr, ptr, i64, i64,
                                  ptr, i64, ptr, i64, i64, ptr},
                                 "mxrt_model_desc");
  }

  llvm::Constant *string(llvm::StringRef s) {
    auto *init = llvm::ConstantDataArray::getString(ctx, s);
    auto *gv = new llvm::GlobalVariable(m, init->getType(), true,
                                        llvm::GlobalValue::PrivateLinkage, init,
                                        ".str");
    gv->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
    return gv;
  }

  llvm::Constant *shape(const std::vector<int64_t> &dims) {
    if (dims.empty())
      return llvm::ConstantPointerNull::get(ptr);
    auto *init = llvm::ConstantDataArray::get(
        ctx, llvm::ArrayRef<uint64_t>(
                 reinterpret_cast<const uint64_t *>(dims.data()), dims.size()));
    return new llvm::GlobalVariable(m, init->getType(), true,
                                    llvm::GlobalValue::PrivateLinkage, init,
                                    ".shape");
  }

  llvm::Constant *tensor(const TensorSpec &t, int64_t offset, int64_t flags) {
    return llvm::ConstantStruct::get(
        tensorDesc,
        {string(t.name), llvm::ConstantInt::get(i64, (int64_t)t.dtype),
         llvm::ConstantInt::get(i64, t.shape.size()), shape(t.shape),
         llvm::ConstantInt::get(i64, offset),
         llvm::ConstantInt::get(i64, t.sizeBytes()),
         llvm::ConstantInt::get(i64, flags)});
  }

  template <typename T>
  llvm::Constant *tensorArray(const std::vector<T> &tensors,
                              llvm::StringRef name) {
    std::vector<llvm::Constant *> elems;
    for (const auto &[i, t] : llvm::enumerate(tensors)) {
      int64_t offset = 0, flags = 0;
      if constexpr (std::is_same_v<T, ParamSpec>) {
        offset = t.offset;
        if (t.aux)
          flags |= 1; // MXRT_TENSOR_AUX
        if (i < spec.trainable.size() && spec.trainable[i])
          flags |= 2; // MXRT_TENSOR_TRAINABLE
      } else {
        if (t.cache)
          flags |= 4; // MXRT_TENSOR_CACHE
        if (t.lengthOf >= 0) {
          flags |= 8; // MXRT_TENSOR_LENGTH
          offset = t.lengthOf;
        }
      }
      elems.push_back(tensor(t, offset, flags));
    }
    return array(tensorDesc, elems, name);
  }

  /// Declared only: emitModule() defines it for the output kind, as an
  /// LLVM constant or beside the code (WeightsWriter.h).
  llvm::GlobalVariable *weights() {
    auto *type =
        llvm::ArrayType::get(llvm::Type::getInt8Ty(ctx), spec.weightsSize);
    auto *gv = new llvm::GlobalVariable(m, type, true,
                                        llvm::GlobalValue::ExternalLinkage,
                                        nullptr, weightsSymbol(spec));
    gv->setVisibility(llvm::GlobalValue::HiddenVisibility);
    gv->setAlignment(llvm::Align(64));
    return gv;
  }

  /// One entry of the function table: `entries` are its code, or its
  /// variants' (spec.variants) when `variants`.
  llvm::Constant *function(const std::string &name,
                           const std::vector<TensorSpec> &inputs,
                           const std::vector<TensorSpec> &outputs,
                           llvm::ArrayRef<llvm::Function *> entries,
                           int64_t flags, bool variants,
                           llvm::Function *shapes = nullptr,
                           llvm::ArrayRef<int64_t> counts = {}) {
    llvm::Constant *null = llvm::ConstantPointerNull::get(ptr);
    llvm::Constant *countTable = null;
    if (!counts.empty()) {
      auto *type = llvm::ArrayType::get(i64, counts.size());
      std::vector<llvm::Constant *> elems;
      for (int64_t d : counts)
        elems.push_back(llvm::ConstantInt::get(i64, d));
      countTable = new llvm::GlobalVariable(
          m, type, true, llvm::GlobalValue::PrivateLinkage,
          llvm::ConstantArray::get(type, elems), ".counts");
    }
    int64_t scratch = std::max<int64_t>(spec.scratchSize, 0);
    llvm::Constant *variantTable = null;
    if (variants) {
      std::vector<llvm::Constant *> elems;
      for (const auto &[v, entry] : llvm::zip_equal(spec.variants, entries)) {
        scratch = std::max<int64_t>(scratch, v.scratchSize);
        elems.push_back(llvm::ConstantStruct::get(
            variantDesc, {llvm::ConstantInt::get(i64, v.batch), entry,
                          llvm::ConstantInt::get(
                              i64, std::max<int64_t>(v.scratchSize, 0))}));
      }
      variantTable = array(variantDesc, elems, ".variants");
    }
    return llvm::ConstantStruct::get(
        functionDesc,
        {string(name), llvm::ConstantInt::get(i64, inputs.size()),
         tensorArray(inputs, ".inputs"),
         llvm::ConstantInt::get(i64, outputs.size()),
         tensorArray(outputs, ".outputs"),
         variants ? null : static_cast<llvm::Constant *>(entries[0]),
         llvm::ConstantInt::get(i64, scratch),
         llvm::ConstantInt::get(i64, flags),
         llvm::ConstantInt::get(i64, variants ? spec.variants.size() : 0),
         variantTable,
         llvm::ConstantInt::get(i64, variants ? spec.batchDim : -1),
         shapes ? static_cast<llvm::Constant *>(shapes) : null,
         llvm::ConstantInt::get(i64, counts.size()), countTable});
  }

  /// The dynamic dimensions' table.
  llvm::Constant *dims() {
    std::vector<llvm::Constant *> elems;
    for (const DimSpec &d : spec.dims)
      elems.push_back(llvm::ConstantStruct::get(
          dimDesc, {string(d.name), llvm::ConstantInt::get(i64, d.min),
                    llvm::ConstantInt::get(i64, d.max),
                    llvm::ConstantInt::get(i64, (d.derived ? 1 : 0) |
                                                    (d.counted ? 2 : 0))}));
    return array(dimDesc, elems, ".dims");
  }

  /// Emits `<name>_descriptor` and the weak `mxc_model_descriptor` alias;
  /// `entries` are the forward's (one per variant when it has them), then
  /// spec.functions' (as many each). A training function's rows meet (the
  /// mean loss), so its variants run whole batches only.
  llvm::GlobalVariable *descriptor(llvm::ArrayRef<llvm::Function *> entries) {
    bool variants = !spec.variants.empty();
    size_t perFunction = std::max<size_t>(spec.variants.size(), 1);
    std::vector<llvm::Constant *> fns = {
        function("forward", spec.inputs, spec.outputs,
                 entries.take_front(perFunction), 0, variants,
                 m.getFunction(spec.name + "_forward_shapes"), spec.counts)};
    for (const auto &[i, f] : llvm::enumerate(spec.functions))
      fns.push_back(
          function(f.name, f.inputs, f.outputs,
                   entries.slice((i + 1) * perFunction, perFunction),
                   (f.updatesState ? MXRT_FUNCTION_UPDATES_STATE : 0) |
                       (variants ? MXRT_FUNCTION_WHOLE_BATCH : 0),
                   variants));
    auto *fnArrayType = llvm::ArrayType::get(functionDesc, fns.size());
    auto *fnArray = new llvm::GlobalVariable(
        m, fnArrayType, true, llvm::GlobalValue::PrivateLinkage,
        llvm::ConstantArray::get(fnArrayType, fns), ".functions");
    llvm::Constant *null = llvm::ConstantPointerNull::get(ptr);
    bool weightsFile = !spec.weightsFile.empty();
    llvm::Constant *weightsPtr = spec.weightsSize == 0 || weightsFile
                                     ? null
                                     : static_cast<llvm::Constant *>(weights());
    llvm::Constant *desc = llvm::ConstantStruct::get(
        modelDesc, {llvm::ConstantInt::get(i64, kModelAbiVersion),
                    string(spec.name), llvm::ConstantInt::get(i64, fns.size()),
                    fnArray, llvm::ConstantInt::get(i64, spec.params.size()),
                    tensorArray(spec.params, ".params"), weightsPtr,
                    llvm::ConstantInt::get(i64, spec.weightsSize),
                    llvm::ConstantInt::get(i64, spec.states.size()),
                    tensorArray(spec.states, ".states"),
                    llvm::ConstantInt::get(i64, (spec.isTraining() ? 1 : 0) |
                                                    (spec.cuda ? 2 : 0)),
                    weightsFile ? string(spec.weightsFile) : null,
                    llvm::ConstantInt::get(i64, spec.weightsFileHash),
                    llvm::ConstantInt::get(i64, spec.dims.size()), dims()});
    auto *gv = new llvm::GlobalVariable(m, modelDesc, true,
                                        llvm::GlobalValue::ExternalLinkage,
                                        desc, spec.name + "_descriptor");
    auto *alias = llvm::GlobalAlias::create(llvm::GlobalValue::WeakAnyLinkage,
                                            "mxc_model_descriptor", gv);
    (void)alias;
    return gv;
  }

private:
  /// A private constant array of `elems`, or NULL when there are none.
  llvm::Constant *array(llvm::StructType *type,
                        llvm::ArrayRef<llvm::Constant *> elems,
                        llvm::StringRef name) {
    if (elems.empty())
      return llvm::ConstantPointerNull::get(ptr);
    auto *arrayType = llvm::ArrayType::get(type, elems.size());
    return new llvm::GlobalVariable(
        m, arrayType, true, llvm::GlobalValue::PrivateLinkage,
        llvm::ConstantArray::get(arrayType, elems), name);
  }

  llvm::Module &m;
  llvm::LLVMContext &ctx;
  const ModelSpec &spec;
  llvm::Type *i64;
  llvm::PointerType *ptr;
  llvm::StructType *tensorDesc, *functionDesc, *modelDesc, *variantDesc,
      *dimDesc;
};

/// `void <name>_<fn>_entry(void *const *buffers, mxrt_exec_context *)`:
/// buffers are [inputs, outputs, params, states, counts]; the lowered
/// function takes (inputs, params, [states,] outputs, [counts,] [params,
/// states,] [dims,] [arena]), the bracketed groups when the function finds
/// data-dependent extents, updates parameters and states, has dynamic
/// extents in its code (the dimensions' values) and has an arena.
llvm::Function *buildEntry(llvm::Module &m, const ModelSpec &spec,
                           const std::string &fnName, size_t nIn, size_t nOut,
                           size_t nCounts, bool updatesState, size_t statesRead,
                           bool dims, bool arena, llvm::Function *impl) {
  llvm::LLVMContext &ctx = m.getContext();
  auto *ptr = llvm::PointerType::getUnqual(ctx);
  auto *type =
      llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {ptr, ptr}, false);
  auto *fn = llvm::Function::Create(type, llvm::GlobalValue::InternalLinkage,
                                    spec.name + "_" + fnName + "_entry", m);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", fn));
  size_t nParam = spec.params.size(), nState = spec.states.size();
  auto load = [&](size_t slot) -> llvm::Value * {
    llvm::Value *addr = b.CreateConstInBoundsGEP1_64(ptr, fn->getArg(0), slot);
    return b.CreateLoad(ptr, addr);
  };
  auto append = [&](std::vector<llvm::Value *> &args, size_t first, size_t n) {
    for (size_t i = 0; i < n; ++i)
      args.push_back(load(first + i));
  };
  size_t params = nIn + nOut, states = params + nParam;
  std::vector<llvm::Value *> args;
  append(args, 0, nIn);
  append(args, params, nParam);
  append(args, states, updatesState ? nState : statesRead);
  append(args, nIn, nOut);
  append(args, states + nState, nCounts);
  if (updatesState) {
    append(args, params, nParam);
    append(args, states, nState);
  }
  if (dims) // mxrt_exec_context.dims
    args.push_back(
        b.CreateLoad(ptr, b.CreateConstInBoundsGEP1_64(ptr, fn->getArg(1), 2)));
  if (arena) // mxrt_exec_context.scratch
    args.push_back(b.CreateLoad(ptr, fn->getArg(1)));
  b.CreateCall(impl, args);
  b.CreateRetVoid();
  return fn;
}

llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
createTargetMachine(const CodegenOptions &options) {
  static bool initialized = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    LLVMInitializeAArch64TargetInfo();
    LLVMInitializeAArch64Target();
    LLVMInitializeAArch64TargetMC();
    LLVMInitializeAArch64AsmPrinter();
    return true;
  }();
  (void)initialized;
  llvm::Triple host(llvm::sys::getDefaultTargetTriple());
  llvm::Triple triple =
      options.triple.empty()
          ? host
          : llvm::Triple(llvm::Triple::normalize(options.triple));
  // The runtime is built and tested for these (docs/arm.md).
  bool supported =
      (triple.getArch() == llvm::Triple::x86_64 ||
       triple.getArch() == llvm::Triple::aarch64) &&
      triple.isOSLinux() &&
      (triple.getEnvironment() == llvm::Triple::GNU ||
       triple.getEnvironment() == llvm::Triple::UnknownEnvironment);
  if (!supported)
    return makeError("--triple=" + options.triple +
                     ": not a supported target (x86_64-linux-gnu, "
                     "aarch64-linux-gnu)");
  triple.setEnvironment(llvm::Triple::GNU);
  bool native = triple.getArch() == host.getArch();
  if (native) // x86_64-linux-gnu names the host's x86_64-pc-linux-gnu
    triple = host;
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return makeError("no LLVM target for " + triple.str() + ": " + error);
  std::string cpu = !options.cpu.empty() ? options.cpu
                    : native             ? llvm::sys::getHostCPUName().str()
                                         : "generic";
  std::unique_ptr<llvm::MCSubtargetInfo> sti(
      target->createMCSubtargetInfo(triple, "", ""));
  if (sti && !sti->isCPUStringValid(cpu))
    return makeError("--mcpu: '" + cpu + "' is not a CPU of " + triple.str() +
                     (triple.isX86()
                          ? " (e.g. x86-64, x86-64-v3, skylake-avx512, znver4)"
                          : " (e.g. generic, cortex-a76, neoverse-v1, "
                            "apple-m1)"));
  llvm::SubtargetFeatures f;
  if (options.cpu.empty() && native) {
    llvm::StringMap<bool> hostFeatures = llvm::sys::getHostCPUFeatures();
    for (auto &feature : hostFeatures)
      f.AddFeature(feature.first(), feature.second);
    // LLVM tunes Intel's AVX-512 server cores to vectorize in 256 bits
    // (wider instructions once lowered the clock); the runtime's kernels
    // run in 512 anyway, and the generated loops in 512 took 0.97-0.98 of
    // the time on the recurrent language models at batch 16 (their gates),
    // the same on lraspp and a BERT-base encoder (Intel Xeon; see
    // docs/kernels.md, "Vector width").
    if (triple.isX86() && hostFeatures.lookup("avx512f"))
      f.AddFeature("prefer-256-bit", false);
  }
  // --mattr: each +name or -name must be one of the target's features.
  for (llvm::StringRef item : llvm::split(options.features, ',')) {
    item = item.trim();
    if (item.empty())
      continue;
    llvm::StringRef name =
        item.drop_front(item.front() == '+' || item.front() == '-' ? 1 : 0);
    bool known = sti && llvm::any_of(sti->getAllProcessorFeatures(),
                                     [&](const llvm::SubtargetFeatureKV &kv) {
                                       return name == kv.Key;
                                     });
    if (!known)
      return makeError(
          "--mattr: '" + name.str() + "' is not a feature of " + triple.str() +
          (triple.isX86() ? " (e.g. +avx2, +avx512f, +avx512vnni)"
                          : " (e.g. +sve, +dotprod, +i8mm, +bf16)"));
    f.AddFeature(name, item.front() != '-');
  }
  std::string features = f.getString();
  llvm::TargetOptions to;
  std::unique_ptr<llvm::TargetMachine> tm(target->createTargetMachine(
      triple, cpu, features, to, llvm::Reloc::PIC_, std::nullopt,
      options.optLevel >= 2 ? llvm::CodeGenOptLevel::Aggressive
                            : llvm::CodeGenOptLevel::Default));
  if (!tm)
    return makeError("cannot create a target machine for CPU '" + cpu + "'");
  return std::move(tm);
}

} // namespace

llvm::Error mxc::checkTarget(const CodegenOptions &options) {
  auto tm = createTargetMachine(options);
  return tm ? llvm::Error::success() : tm.takeError();
}

namespace {

/// Entry functions of at least this many basic blocks are split
/// (splitIntoLoops); 0 splits none.
constexpr unsigned kSplitMinBlocks = 64;

/// Splits the big entry functions (forward, grad, train_step: every layer's
/// loops in one body) into a function per top-level loop nest, kept out of
/// line, before the optimizer sees them: LLVM's function passes cost more
/// than linearly in a function's size, and DenseNet-121's forward (one
/// function of a few hundred loop nests) took 12 s of the optimizer where
/// its loops one by one take a fraction (docs/compile-time.md). Functions
/// of fewer than `minBlocks` blocks stay whole.
void splitIntoLoops(llvm::Module &m, unsigned minBlocks) {
  if (minBlocks == 0)
    return;
  std::vector<llvm::Function *> big;
  for (llvm::Function &f : m)
    if (!f.isDeclaration() && f.size() >= minBlocks)
      big.push_back(&f);
  for (llvm::Function *f : big) {
    llvm::DominatorTree dt(*f);
    llvm::LoopInfo li(dt);
    std::vector<llvm::SmallVector<llvm::BasicBlock *, 16>> nests;
    for (llvm::Loop *loop : li.getTopLevelLoops())
      nests.emplace_back(loop->getBlocks().begin(), loop->getBlocks().end());
    // Program order, so that the pieces' names follow the layers.
    std::reverse(nests.begin(), nests.end());
    // One cache for all of the function's extractions, as HotColdSplitting
    // does: the nests are disjoint and hold no allocas, so what it records
    // of the blocks left behind stays true (one per extraction made the
    // split quadratic: DenseNet-201's forward spent seconds rebuilding it).
    llvm::CodeExtractorAnalysisCache cache(*f);
    unsigned index = 0;
    for (auto &blocks : nests) {
      llvm::CodeExtractor extractor(
          blocks, &dt, /*AggregateArgs=*/false, nullptr, nullptr, nullptr,
          /*AllowVarArgs=*/false,
          /*AllowAlloca=*/false, nullptr, "loop" + std::to_string(index));
      if (!extractor.isEligible())
        continue;
      if (llvm::Function *piece = extractor.extractCodeRegion(cache)) {
        piece->addFnAttr(llvm::Attribute::NoInline);
        ++index;
      }
    }
  }
}

/// Loops of at most this many iterations are fully unrolled (LLVM's
/// -unroll-full-max-count, which a command line may still set). O3 alone
/// unrolled the 12 vector steps of a 384-channel row and then the 14 rows
/// around it in every ConvNeXt and Swin block: instruction selection on
/// those blocks was 25 of ConvNeXt-small's 33 s, and capping the count at
/// 8 took it to 3.4 s with the same forward time (docs/compile-time.md).
constexpr unsigned kFullUnrollMaxCount = 8;
/// LLVM's unroll cost threshold (-unroll-threshold; O3's own is 300). Our
/// loops come vectorized and interleaved already; unrolling them further
/// bought no measurable speed (LeNet, MLP, ResNet-20/18 forward and
/// ResNet-20's training step, A/B interleaved) and cost Swin-S 30% of its
/// compile time (15.1 -> 10.3 s of CPU).
constexpr unsigned kUnrollThreshold = 100;

/// Sets LLVM's unroll options to mxc's defaults unless the command line set
/// them (once per process).
void setUnrollDefaults() {
  static std::once_flag once;
  std::call_once(once, [] {
    auto set = [](llvm::StringRef name, unsigned value) {
      llvm::cl::Option *option = llvm::cl::getRegisteredOptions().lookup(name);
      if (option && option->getNumOccurrences() == 0)
        option->addOccurrence(0, option->ArgStr, std::to_string(value));
    };
    set("unroll-full-max-count", kFullUnrollMaxCount);
    set("unroll-threshold", kUnrollThreshold);
  });
}

void optimize(llvm::Module &m, llvm::TargetMachine &tm, unsigned level) {
  setUnrollDefaults();
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions pto;
  pto.LoopVectorization = level >= 2;
  pto.SLPVectorization = level >= 2;
  llvm::PassBuilder pb(&tm, pto);
  // The default alias analyses plus SCEV's in the outlined loops
  // (LoopAlias.h).
  llvm::AAManager aa = pb.buildDefaultAAPipeline();
  aa.registerFunctionAnalysis<LoopAlias>();
  fam.registerPass([] { return LoopAlias(); });
  fam.registerPass([&] { return std::move(aa); });
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::OptimizationLevel opt = level == 0   ? llvm::OptimizationLevel::O0
                                : level == 1 ? llvm::OptimizationLevel::O1
                                : level == 2 ? llvm::OptimizationLevel::O2
                                             : llvm::OptimizationLevel::O3;
  llvm::ModulePassManager mpm = level == 0
                                    ? pb.buildO0DefaultPipeline(opt)
                                    : pb.buildPerModuleDefaultPipeline(opt);
  mpm.run(m, mam);
}

/// Object code of `m` (optimized already) for `tm`: an object file, or
/// with `assembly` its text.
llvm::Expected<llvm::SmallVector<char, 0>>
emitObject(llvm::Module &m, llvm::TargetMachine &tm, bool assembly) {
  llvm::SmallVector<char, 0> object;
  llvm::raw_svector_ostream os(object);
  llvm::legacy::PassManager pm;
  if (tm.addPassesToEmitFile(pm, os, nullptr,
                             assembly ? llvm::CodeGenFileType::AssemblyFile
                                      : llvm::CodeGenFileType::ObjectFile))
    return makeError("the target cannot emit object files");
  pm.run(m);
  return object;
}

/// The number of pieces a shared library's code is optimized and compiled
/// in, on as many threads: one per core (at most 4) for a module of at
/// least kParallelMinInstructions instructions, else 1.
constexpr size_t kParallelMinInstructions = 5000;
unsigned codegenParts(const llvm::Module &m) {
  size_t instructions = m.getInstructionCount();
  if (instructions < kParallelMinInstructions)
    return 1;
  return std::clamp(std::thread::hardware_concurrency(), 1u, 4u);
}

/// `m` split into `parts` modules (llvm::SplitModule: whole functions,
/// local symbols made hidden globals so that the pieces link), each
/// optimized at `level` and compiled to an object on its own thread in
/// its own LLVMContext (the pieces travel as bitcode). The split depends
/// only on the module, so the objects are the same on every run.
llvm::Expected<std::vector<llvm::SmallVector<char, 0>>>
compileInParts(llvm::Module &m, const CodegenOptions &options, unsigned level,
               unsigned parts) {
  std::vector<llvm::SmallVector<char, 0>> bitcode;
  llvm::SplitModule(
      m, parts,
      [&](std::unique_ptr<llvm::Module> part) {
        llvm::SmallVector<char, 0> bytes;
        llvm::raw_svector_ostream os(bytes);
        llvm::WriteBitcodeToFile(*part, os);
        bitcode.push_back(std::move(bytes));
      },
      /*PreserveLocals=*/false);
  std::vector<llvm::SmallVector<char, 0>> objects(bitcode.size());
  std::vector<std::string> errors(bitcode.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < bitcode.size(); ++i)
    threads.emplace_back([&, i] {
      llvm::LLVMContext context;
      auto part = llvm::parseBitcodeFile(
          llvm::MemoryBufferRef(
              llvm::StringRef(bitcode[i].data(), bitcode[i].size()), "part"),
          context);
      if (!part) {
        errors[i] = llvm::toString(part.takeError());
        return;
      }
      auto tm = createTargetMachine(options);
      if (!tm) {
        errors[i] = llvm::toString(tm.takeError());
        return;
      }
      optimize(**part, **tm, level);
      auto object = emitObject(**part, **tm, /*assembly=*/false);
      if (!object) {
        errors[i] = llvm::toString(object.takeError());
        return;
      }
      objects[i] = std::move(*object);
    });
  for (std::thread &t : threads)
    t.join();
  for (const std::string &error : errors)
    if (!error.empty())
      return makeError("compiling a piece of the model: " + error);
  return objects;
}

/// A temporary path beside `path`, so that rename() stays on one file system.
std::string tempPathFor(const std::string &path) {
  return path + ".tmp" + std::to_string(llvm::sys::Process::getProcessId());
}

/// Renames the finished `tmp` to `path`, or removes it.
llvm::Error moveInto(const std::string &tmp, const std::string &path) {
  if (auto ec = llvm::sys::fs::rename(tmp, path)) {
    llvm::sys::fs::remove(tmp);
    return makeError("cannot write '" + path + "': " + ec.message());
  }
  return llvm::Error::success();
}

/// MXC_REPORT_MEMORY=1 prints the resident set size and its peak (VmRSS,
/// VmHWM) at codegen's stages to stderr, for bench/compile_memory.py. The
/// kernel's peak is reset where codegen starts, after printing it, so that
/// the later peaks are codegen's own; the process's final peak (GNU time's)
/// then misses the import's, so time a run without it. ld.lld's own peak is
/// not reported: a child started by posix_spawn inherits its parent's peak
/// in its rusage.
struct MemoryReport {
  static bool enabled() {
    static bool on = [] {
      const char *v = std::getenv("MXC_REPORT_MEMORY");
      return v && *v && llvm::StringRef(v) != "0";
    }();
    return on;
  }

  static void stage(llvm::StringRef name, bool resetPeak = false) {
    if (!enabled())
      return;
    auto status = llvm::MemoryBuffer::getFileAsStream("/proc/self/status");
    if (!status)
      return;
    auto kib = [&](llvm::StringRef key) {
      llvm::StringRef rest = (*status)->getBuffer();
      size_t at = rest.find(key);
      uint64_t value = 0;
      if (at != llvm::StringRef::npos)
        rest.drop_front(at + key.size()).ltrim().consumeInteger(10, value);
      return value;
    };
    llvm::errs() << "mxc: memory: " << name << ": rss " << kib("VmRSS:") / 1024
                 << " MiB, peak " << kib("VmHWM:") / 1024 << " MiB"
                 << (resetPeak ? " (peak reset)" : "") << "\n";
    if (resetPeak) {
      std::error_code ec;
      llvm::raw_fd_ostream os("/proc/self/clear_refs", ec,
                              llvm::sys::fs::CD_OpenExisting,
                              llvm::sys::fs::FA_Write, llvm::sys::fs::OF_None);
      if (!ec)
        os << "5"; // reset VmHWM to VmRSS (proc(5))
      if (os.has_error())
        os.clear_error();
    }
  }
};

/// compileStage's clock and settings.
struct StageClock {
  StageReport report;
  std::chrono::steady_clock::time_point start =
                                            std::chrono::steady_clock::now(),
                                        last = start;
  bool progressShown = false;
};
StageClock &stageClock() {
  static StageClock clock;
  return clock;
}

/// Links `inputs` (objects, `-T` scripts) into the shared library `outPath`.
llvm::Error linkSharedLibrary(llvm::ArrayRef<std::string> inputs,
                              const std::string &outPath,
                              const std::string &soname,
                              const CodegenOptions &options) {
  std::string lld = MXC_LLD_PATH;
  std::vector<std::string> args = {
      lld,  "-shared", "-o", outPath,       "-soname",    soname,
      "-z", "defs",    "-z", "noexecstack", "--as-needed"};
  args.insert(args.end(), inputs.begin(), inputs.end());
  if (!options.runtimeLibDir.empty()) {
    args.push_back("-L" + options.runtimeLibDir);
    args.push_back("-rpath");
    args.push_back(options.runtimeLibDir);
  }
  args.push_back("-lmxrt");
  if (!options.systemLibDirs.empty())
    for (const std::string &dir : options.systemLibDirs)
      args.push_back("-L" + dir);
  else
    for (llvm::StringRef dir :
         llvm::split(llvm::StringRef(MXC_SYSTEM_LIB_DIRS), ':'))
      if (!dir.empty())
        args.push_back(("-L" + dir).str());
  args.push_back("-lm");
  args.push_back("-lc");
  std::vector<llvm::StringRef> refs(args.begin(), args.end());

  llvm::SmallString<128> logPath;
  if (auto ec = llvm::sys::fs::createTemporaryFile("mxc-link", "log", logPath))
    return makeError("cannot create a temporary file: " + ec.message());
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, logPath.str(),
                                                logPath.str()};
  std::string errMsg;
  int rc = llvm::sys::ExecuteAndWait(lld, refs, std::nullopt, redirects, 0, 0,
                                     &errMsg);
  std::string log;
  if (auto buf = llvm::MemoryBuffer::getFile(logPath))
    log = (*buf)->getBuffer().str();
  llvm::sys::fs::remove(logPath);
  if (rc != 0)
    return makeError("linking " + outPath + " with " + lld + " failed" +
                     (errMsg.empty() ? "" : " (" + errMsg + ")") + ":\n" + log);
  return llvm::Error::success();
}

} // namespace

llvm::Error mxc::writeFileAtomically(
    const std::string &path,
    llvm::function_ref<llvm::Error(llvm::raw_ostream &)> write) {
  if (path == "-") {
    llvm::Error err = write(llvm::outs());
    llvm::outs().flush();
    return err;
  }
  std::string tmp = tempPathFor(path);
  {
    std::error_code ec;
    DirectFileStream os(tmp, ec, /*truncate=*/true);
    if (ec)
      return makeError("cannot write '" + path + "': " + ec.message());
    llvm::Error err = write(os);
    os.close();
    if (err || os.has_error()) {
      os.clear_error();
      llvm::sys::fs::remove(tmp);
      return err ? std::move(err) : makeError("cannot write '" + path + "'");
    }
  }
  return moveInto(tmp, path);
}

llvm::Error mxc::writeFileAtomically(const std::string &path,
                                     llvm::StringRef contents) {
  return writeFileAtomically(path, [&](llvm::raw_ostream &os) {
    os << contents;
    return llvm::Error::success();
  });
}

/// The MLIR function of function `fn`'s variant for `batch` rows.
std::string mxc::variantFunctionName(llvm::StringRef fn, int64_t batch) {
  return (fn + "_b" + llvm::Twine(batch)).str();
}

llvm::Expected<std::unique_ptr<llvm::Module>>
mxc::buildLLVMModule(llvm::ArrayRef<mlir::ModuleOp> modules,
                     const ModelSpec &spec, llvm::LLVMContext &context) {
  assert(modules.size() == std::max<size_t>(spec.variants.size(), 1) &&
         "one module per variant");
  mlir::ModuleOp module = modules.front();
  MemoryReport::stage("before codegen", /*resetPeak=*/true);
  compileStage("lowering", "LLVM IR");
  mlir::DialectRegistry registry;
  mlir::registerBuiltinDialectTranslation(registry);
  mlir::registerLLVMDialectTranslation(registry);
  // A CUDA library's gpu.binary ops and kernel launches (embedded fatbins,
  // mgpu* calls).
  mlir::registerGPUDialectTranslation(registry);
  mlir::registerNVVMDialectTranslation(registry);
  module->getContext()->appendDialectRegistry(registry);
  std::unique_ptr<llvm::Module> m =
      mlir::translateModuleToLLVMIR(module, context, spec.name);
  if (!m)
    return makeError("translation to LLVM IR failed");
  // The forward function (each variant's, their modules linked into the
  // first: their internal symbols renamed where they clash), then the
  // training functions.
  struct Fn {
    std::string name;
    size_t nIn, nOut;
    bool updatesState;
    size_t statesRead;
    int64_t scratchSize;
    bool dims = false;
    size_t counts = 0;
  };
  std::vector<Fn> fns;
  if (spec.variants.empty())
    fns.push_back({kForwardFunctionName, spec.inputs.size(),
                   spec.outputs.size(), false, 0, spec.scratchSize,
                   spec.shapeFunction, spec.counts.size()});
  for (const auto &[i, v] : llvm::enumerate(spec.variants)) {
    std::string name = variantFunctionName(kForwardFunctionName, v.batch);
    fns.push_back({name, spec.inputs.size(), spec.outputs.size(), false, 0,
                   v.scratchSize});
    std::unique_ptr<llvm::Module> variant =
        i == 0 ? nullptr
               : mlir::translateModuleToLLVMIR(modules[i], context, name);
    if (i != 0 && !variant)
      return makeError("translation to LLVM IR failed");
    llvm::Module &holder = i == 0 ? *m : *variant;
    // Each variant's functions (a training library's too) by its batch.
    if (llvm::Function *f = holder.getFunction(kForwardFunctionName))
      f->setName(name);
    for (const FunctionSpec &f : spec.functions)
      if (llvm::Function *fn = holder.getFunction(f.name))
        fn->setName(variantFunctionName(f.name, v.batch));
    if (variant && llvm::Linker::linkModules(*m, std::move(variant)))
      return makeError("linking the forward's variants failed");
  }
  for (const FunctionSpec &f : spec.functions) {
    Fn fn{f.name,
          f.inputs.size(),
          f.outputs.size(),
          f.updatesState,
          f.updatesState ? spec.states.size() : f.statesRead,
          spec.scratchSize};
    if (spec.variants.empty())
      fns.push_back(fn);
    for (const VariantSpec &v : spec.variants) {
      fn.name = variantFunctionName(f.name, v.batch);
      fn.scratchSize = v.scratchSize;
      fns.push_back(fn);
    }
  }
  std::vector<llvm::Function *> entries;
  for (const Fn &f : fns) {
    llvm::Function *impl = m->getFunction(f.name);
    if (!impl)
      return makeError("the lowered module has no '" + Twine(f.name) +
                       "' function");
    impl->setName(spec.name + "_" + f.name + "_impl");
    impl->setLinkage(llvm::GlobalValue::InternalLinkage);
    size_t expected =
        f.nIn + spec.params.size() + f.statesRead + f.nOut + f.counts;
    if (f.updatesState)
      expected += spec.params.size() + spec.states.size();
    if (f.scratchSize >= 0)
      ++expected;
    if (f.dims)
      ++expected;
    if (impl->arg_size() != expected)
      return makeError("the lowered " + Twine(f.name) + " function takes " +
                       Twine(impl->arg_size()) + " buffers, expected " +
                       Twine(expected));
    entries.push_back(buildEntry(*m, spec, f.name, f.nIn, f.nOut, f.counts,
                                 f.updatesState, f.statesRead, f.dims,
                                 f.scratchSize >= 0, impl));
  }
  if (spec.shapeFunction) {
    std::string name = std::string(kForwardFunctionName) + "_shapes";
    llvm::Function *shapes = m->getFunction(name);
    if (!shapes)
      return makeError("the lowered module has no '" + Twine(name) +
                       "' function");
    shapes->setName(spec.name + "_forward_extents");
    shapes->setLinkage(llvm::GlobalValue::InternalLinkage);
    // mxrt_shapes_fn: the derived extents, then the scratch bytes (the
    // static arena's when no buffer's size is dynamic).
    llvm::Function *scratch =
        m->getFunction(name.substr(0, name.size() - 7) + "_scratch");
    auto *i64 = llvm::Type::getInt64Ty(m->getContext());
    auto *fn = llvm::Function::Create(
        llvm::FunctionType::get(i64, {shapes->getArg(0)->getType()}, false),
        llvm::GlobalValue::InternalLinkage, spec.name + "_forward_shapes", *m);
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(m->getContext(), "entry", fn));
    b.CreateCall(shapes, {fn->getArg(0)});
    if (scratch) {
      scratch->setLinkage(llvm::GlobalValue::InternalLinkage);
      b.CreateRet(b.CreateCall(scratch, {fn->getArg(0)}));
    } else {
      b.CreateRet(b.getInt64(std::max<int64_t>(spec.scratchSize, 0)));
    }
  }
  TableBuilder table(*m, spec);
  llvm::GlobalVariable *descriptor = table.descriptor(entries);
  buildTypedApi(*m, spec, descriptor);
  std::string err;
  llvm::raw_string_ostream os(err);
  if (llvm::verifyModule(*m, &os))
    return makeError("generated LLVM IR is invalid: " + err);
  MemoryReport::stage("LLVM IR built");
  compileStage("LLVM IR", "optimizing and emitting code");
  return std::move(m);
}

/// Defines the weights declared by TableBuilder::weights() in `m` itself, as
/// an LLVM constant: for the outputs with no link step after them (.ll, .o),
/// at the cost of copies of the weights (docs/compile-memory.md).
static void defineWeightsInModule(llvm::Module &m, const ModelSpec &spec) {
  llvm::GlobalVariable *gv = m.getNamedGlobal(weightsSymbol(spec));
  if (!gv)
    return;
  gv->setInitializer(llvm::ConstantDataArray::get(
      m.getContext(), llvm::ArrayRef<uint8_t>(spec.weightsBlob())));
  gv->setLinkage(llvm::GlobalValue::InternalLinkage);
  gv->setVisibility(llvm::GlobalValue::DefaultVisibility);
}

/// `objects` linked into the shared library `path` (through temporary
/// files beside it), the weights placed by a linker script.
llvm::Error
writeSharedLibrary(const std::vector<llvm::SmallVector<char, 0>> &objects,
                   const ModelSpec &spec, const std::string &path,
                   const CodegenOptions &options) {
  std::string tmp = tempPathFor(path);
  std::vector<std::string> inputs, temporaries;
  for (size_t i = 0; i < objects.size(); ++i) {
    inputs.push_back(tmp + "." + std::to_string(i) + ".o");
    temporaries.push_back(inputs.back());
  }
  // The weights go in the library, or in their file beside it, written
  // first: a library whose weights file failed is not written.
  bool embedded = spec.weightsSize > 0 && spec.weightsFile.empty();
  std::string weightsPath;
  if (!spec.weightsFile.empty()) {
    weightsPath = weightsFilePath(path, spec);
    if (auto err = writeWeightsFile(weightsPath, spec))
      return err;
  }
  if (embedded) {
    inputs.insert(inputs.end(), {"-T", tmp + ".lds"});
    temporaries.push_back(tmp + ".lds");
  }
  llvm::scope_exit removeInputs([&] {
    for (const std::string &file : temporaries)
      llvm::sys::fs::remove(file);
  });
  for (size_t i = 0; i < objects.size(); ++i)
    if (auto err = writeFileAtomically(
            temporaries[i],
            llvm::StringRef(objects[i].data(), objects[i].size())))
      return err;
  if (embedded)
    if (auto err =
            writeFileAtomically(temporaries.back(), weightsLinkerScript(spec)))
      return err;
  llvm::Error err = linkSharedLibrary(
      inputs, tmp, llvm::sys::path::filename(path).str(), options);
  if (!err && embedded)
    err = fillReservedWeights(tmp, spec);
  MemoryReport::stage("library written");
  compileStage("linking");
  if (!err)
    err = moveInto(tmp, path);
  if (err) {
    llvm::sys::fs::remove(tmp);
    if (!weightsPath.empty())
      llvm::sys::fs::remove(weightsPath);
  }
  return err;
}

llvm::Error mxc::emitModule(llvm::Module &m, const ModelSpec &spec,
                            OutputKind kind, const std::string &path,
                            const CodegenOptions &options) {
  auto tm = createTargetMachine(options);
  if (!tm)
    return tm.takeError();
  m.setTargetTriple((*tm)->getTargetTriple());
  m.setDataLayout((*tm)->createDataLayout());
  if (kind == OutputKind::LLVMIR || kind == OutputKind::Object ||
      kind == OutputKind::Assembly)
    defineWeightsInModule(m, spec);
  // A CUDA library's host code has no loops: it launches kernels and calls
  // libmxrt, straight-line code that -O2/-O3 spent most of the compile on
  // (ResNet-20's training library, 1,593 launches: 51 s at -O3, 23 s at
  // -O1; docs/cuda.md).
  unsigned level =
      spec.cuda ? std::min(options.optLevel, 1u) : options.optLevel;
  // A big CPU library is optimized and compiled in pieces, in parallel
  // (docs/compile-time.md); the CUDA target's host code is small.
  unsigned parts =
      kind == OutputKind::SharedLibrary && !spec.cuda ? codegenParts(m) : 1;
  std::vector<llvm::SmallVector<char, 0>> objects;
  splitIntoLoops(m, kSplitMinBlocks);
  if (parts > 1) {
    auto compiled = compileInParts(m, options, level, parts);
    if (!compiled)
      return compiled.takeError();
    objects = std::move(*compiled);
    MemoryReport::stage("objects emitted");
    compileStage("optimizing and emitting code (" + std::to_string(parts) +
                     " threads)",
                 "linking");
    return writeSharedLibrary(objects, spec, path, options);
  }
  optimize(m, **tm, level);
  MemoryReport::stage("optimized");
  compileStage("optimizing", "emitting code");

  if (kind == OutputKind::LLVMIR) {
    std::string text;
    llvm::raw_string_ostream os(text);
    m.print(os, nullptr);
    return writeFileAtomically(path, text);
  }

  auto emitted = emitObject(m, **tm, kind == OutputKind::Assembly);
  if (!emitted)
    return emitted.takeError();
  objects.push_back(std::move(*emitted));
  MemoryReport::stage("object emitted");
  compileStage("emitting code", "writing");
  llvm::StringRef objectBytes(objects[0].data(), objects[0].size());
  switch (kind) {
  case OutputKind::Object:
  case OutputKind::Assembly:
    return writeFileAtomically(path, objectBytes);
  case OutputKind::StaticArchive: {
    llvm::Error err = writeFileAtomically(path, [&](llvm::raw_ostream &os) {
      return writeModelArchive(os, objectBytes, spec);
    });
    MemoryReport::stage("archive written");
    compileStage("writing the archive");
    return err;
  }
  case OutputKind::SharedLibrary:
    return writeSharedLibrary(objects, spec, path, options);
  case OutputKind::LLVMIR:
    break;
  }
  llvm_unreachable("handled above");
}

void mxc::setStageReport(StageReport report) { stageClock().report = report; }

void mxc::compileStage(llvm::StringRef name, llvm::StringRef next) {
  StageClock &clock = stageClock();
  auto now = std::chrono::steady_clock::now();
  auto seconds = [](auto d) {
    return std::chrono::duration<double>(d).count();
  };
  if (clock.progressShown) { // clear the progress line
    llvm::errs() << "\r\x1b[K";
    clock.progressShown = false;
  }
  if (clock.report.times && !name.empty())
    llvm::errs() << llvm::format("mxc: time: %-44s %7.3f s (total %.3f s)\n",
                                 name.str().c_str(), seconds(now - clock.last),
                                 seconds(now - clock.start));
  clock.last = now;
  if (clock.report.progress && !next.empty()) {
    llvm::errs() << "mxc: " << next << "...";
    llvm::errs().flush();
    clock.progressShown = true;
  }
}
