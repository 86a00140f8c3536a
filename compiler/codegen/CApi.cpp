// SPDX-License-Identifier: Apache-2.0
// The typed C API a library exports beside its table (<name>_create, _run,
// _dims, _release, the training functions and parameters by name): thin
// LLVM IR functions that call into libmxrt with the model's descriptor, and
// how its tensors are named and passed, which Header.cpp declares.
#include "compiler/codegen/CApi.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"

using namespace mxc;

std::string mxc::cIdentifier(llvm::StringRef name) {
  std::string id;
  for (char c : name)
    id += llvm::isAlnum(c) ? c : '_';
  if (id.empty() || llvm::isDigit(id[0]))
    id = "t_" + id;
  return id;
}

bool mxc::passedByValue(const TensorSpec &t) {
  return t.shape.empty() && (t.dtype == DType::F32 || t.dtype == DType::F64 ||
                             t.dtype == DType::I32 || t.dtype == DType::I64);
}

namespace {

/// A function `name` of `params` that returns what `callee` (an i32
/// function) returns for the arguments `args` builds from its own.
template <typename Args>
void defineCallThrough(llvm::Module &m, const std::string &name,
                       llvm::ArrayRef<llvm::Type *> params,
                       llvm::FunctionCallee callee, const Args &args) {
  auto *i32 = llvm::Type::getInt32Ty(m.getContext());
  auto *fn =
      llvm::Function::Create(llvm::FunctionType::get(i32, params, false),
                             llvm::GlobalValue::ExternalLinkage, name, m);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(m.getContext(), "entry", fn));
  b.CreateRet(b.CreateCall(callee, args(b, fn)));
}

/// The LLVM type input `t` is passed as in the typed API.
llvm::Type *typedApiType(llvm::LLVMContext &ctx, const TensorSpec &t) {
  if (!passedByValue(t))
    return llvm::PointerType::getUnqual(ctx);
  switch (t.dtype) {
  case DType::F32:
    return llvm::Type::getFloatTy(ctx);
  case DType::F64:
    return llvm::Type::getDoubleTy(ctx);
  case DType::I32:
    return llvm::Type::getInt32Ty(ctx);
  default:
    return llvm::Type::getInt64Ty(ctx);
  }
}

/// The typed training API (generateHeader documents it): `<name>_<fn>`
/// for each function besides forward (through mxrt_instance_call_raw, a
/// rank-0 input by value), parameters by name (get for every model; set,
/// save and load for training libraries).
/// The model's dimensions as an array on the stack: `fn`'s arguments from
/// `first` on give those not derived, in order; the derived ones are -1.
llvm::Value *dimArray(llvm::IRBuilder<> &b, const ModelSpec &spec,
                      llvm::Function *fn, size_t first) {
  llvm::Type *i64 = b.getInt64Ty();
  llvm::Value *a =
      b.CreateAlloca(i64, b.getInt64(std::max<size_t>(spec.dims.size(), 1)));
  for (const auto &[i, d] : llvm::enumerate(spec.dims))
    b.CreateStore(d.derived ? static_cast<llvm::Value *>(b.getInt64(-1))
                            : fn->getArg(first++),
                  b.CreateConstInBoundsGEP1_64(i64, a, i));
  return a;
}

size_t numFreeDims(const ModelSpec &spec) {
  return llvm::count_if(spec.dims, [](const DimSpec &d) { return !d.derived; });
}

void buildTrainingApi(llvm::Module &m, const ModelSpec &spec) {
  llvm::LLVMContext &ctx = m.getContext();
  auto *ptr = llvm::PointerType::getUnqual(ctx);
  auto *i32 = llvm::Type::getInt32Ty(ctx);
  auto *i64 = llvm::Type::getInt64Ty(ctx);
  auto rawCall = [&](const char *callee, llvm::ArrayRef<llvm::Type *> args) {
    return m.getOrInsertFunction(callee,
                                 llvm::FunctionType::get(i32, args, false));
  };
  using Builder = llvm::IRBuilder<>;
  auto passThrough = [](Builder &, llvm::Function *fn) {
    return llvm::SmallVector<llvm::Value *>(llvm::make_pointer_range(
        llvm::make_range(fn->arg_begin(), fn->arg_end())));
  };
  defineCallThrough(m, spec.name + "_get_param", {ptr, ptr, ptr, i64},
                    rawCall("mxrt_instance_read_param", {ptr, ptr, ptr, i64}),
                    passThrough);
  if (!spec.isTraining())
    return;
  defineCallThrough(m, spec.name + "_set_param", {ptr, ptr, ptr, i64},
                    rawCall("mxrt_instance_write_param", {ptr, ptr, ptr, i64}),
                    passThrough);
  defineCallThrough(m, spec.name + "_save_params", {ptr, ptr},
                    rawCall("mxrt_instance_save_params", {ptr, ptr}),
                    passThrough);
  defineCallThrough(m, spec.name + "_load_params", {ptr, ptr},
                    rawCall("mxrt_instance_load_params", {ptr, ptr}),
                    passThrough);
  // (instance, [the values of the dimensions not derived,] inputs, outputs)
  // as <name>_run takes them.
  bool dims = !spec.dims.empty();
  size_t nFree = numFreeDims(spec);
  auto callRaw =
      dims ? rawCall("mxrt_instance_call_raw_dims", {ptr, i32, ptr, ptr, ptr})
           : rawCall("mxrt_instance_call_raw", {ptr, i32, ptr, ptr});
  for (const auto &[index, f] : llvm::enumerate(spec.functions)) {
    std::vector<llvm::Type *> params = {ptr};
    params.insert(params.end(), nFree, i64);
    for (const TensorSpec &t : f.inputs)
      params.push_back(typedApiType(ctx, t));
    params.insert(params.end(), f.outputs.size(), ptr);
    size_t nIn = f.inputs.size(), nOut = f.outputs.size();
    int32_t function = int32_t(index + 1);
    defineCallThrough(
        m, spec.name + "_" + cIdentifier(f.name), params, callRaw,
        [&](Builder &b, llvm::Function *fn) {
          auto array = [&](size_t first, size_t n) {
            llvm::Value *a =
                b.CreateAlloca(ptr, b.getInt64(std::max<size_t>(n, 1)));
            for (size_t i = 0; i < n; ++i) {
              llvm::Value *arg = fn->getArg(unsigned(first + i));
              if (!arg->getType()->isPointerTy()) { // a scalar's address
                llvm::Value *slot = b.CreateAlloca(arg->getType());
                b.CreateStore(arg, slot);
                arg = slot;
              }
              b.CreateStore(arg, b.CreateConstInBoundsGEP1_64(ptr, a, i));
            }
            return a;
          };
          llvm::Value *ins = array(1 + nFree, nIn),
                      *outs = array(1 + nFree + nIn, nOut);
          if (dims)
            return llvm::SmallVector<llvm::Value *>{
                fn->getArg(0), b.getInt32(function), dimArray(b, spec, fn, 1),
                ins, outs};
          return llvm::SmallVector<llvm::Value *>{
              fn->getArg(0), b.getInt32(function), ins, outs};
        });
  }
}

} // namespace

void mxc::buildTypedApi(llvm::Module &m, const ModelSpec &spec,
                        llvm::GlobalVariable *descriptor) {
  llvm::LLVMContext &ctx = m.getContext();
  auto *ptr = llvm::PointerType::getUnqual(ctx);
  auto *i32 = llvm::Type::getInt32Ty(ctx);
  auto *i64 = llvm::Type::getInt64Ty(ctx);
  auto *voidTy = llvm::Type::getVoidTy(ctx);
  auto createStatic = m.getOrInsertFunction(
      "mxrt_instance_create_static",
      llvm::FunctionType::get(i32, {ptr, ptr, ptr}, false));
  auto runRaw = m.getOrInsertFunction(
      "mxrt_instance_run_raw",
      llvm::FunctionType::get(i32, {ptr, ptr, ptr}, false));
  auto runRawDims = m.getOrInsertFunction(
      "mxrt_instance_run_raw_dims",
      llvm::FunctionType::get(i32, {ptr, ptr, ptr, ptr}, false));
  auto release = m.getOrInsertFunction(
      "mxrt_instance_release", llvm::FunctionType::get(voidTy, {ptr}, false));

  {
    auto *fn = llvm::Function::Create(
        llvm::FunctionType::get(i32, {ptr, ptr}, false),
        llvm::GlobalValue::ExternalLinkage, spec.name + "_create", m);
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", fn));
    b.CreateRet(
        b.CreateCall(createStatic, {descriptor, fn->getArg(0), fn->getArg(1)}));
  }
  {
    // (instance, [the values of the dimensions not derived,] inputs,
    // outputs); the runtime computes the derived ones.
    size_t nFree = numFreeDims(spec), nIn = spec.inputs.size(),
           nOut = spec.outputs.size();
    std::vector<llvm::Type *> params(1 + nFree + nIn + nOut, ptr);
    std::fill_n(params.begin() + 1, nFree, i64);
    auto *fn = llvm::Function::Create(
        llvm::FunctionType::get(i32, params, false),
        llvm::GlobalValue::ExternalLinkage, spec.name + "_run", m);
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", fn));
    auto array = [&](llvm::Type *type, size_t first, size_t n) {
      llvm::Value *a = b.CreateAlloca(type, b.getInt64(std::max<size_t>(n, 1)));
      for (size_t i = 0; i < n; ++i)
        b.CreateStore(fn->getArg(first + i),
                      b.CreateConstInBoundsGEP1_64(type, a, i));
      return a;
    };
    llvm::Value *ins = array(ptr, 1 + nFree, nIn),
                *outs = array(ptr, 1 + nFree + nIn, nOut);
    if (spec.dims.empty())
      b.CreateRet(b.CreateCall(runRaw, {fn->getArg(0), ins, outs}));
    else
      b.CreateRet(b.CreateCall(
          runRawDims, {fn->getArg(0), dimArray(b, spec, fn, 1), ins, outs}));
  }
  if (llvm::Function *shapes = m.getFunction(spec.name + "_forward_shapes")) {
    // <name>_dims(the free dimensions' values, out_dims): out_dims gets
    // them and the derived ones.
    size_t nFree = numFreeDims(spec);
    std::vector<llvm::Type *> params(nFree + 1, i64);
    params.back() = ptr;
    auto *fn = llvm::Function::Create(
        llvm::FunctionType::get(i32, params, false),
        llvm::GlobalValue::ExternalLinkage, spec.name + "_dims", m);
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", fn));
    llvm::Value *out = fn->getArg(nFree);
    llvm::Value *dims = dimArray(b, spec, fn, 0);
    for (size_t i = 0; i < spec.dims.size(); ++i)
      b.CreateStore(
          b.CreateLoad(i64, b.CreateConstInBoundsGEP1_64(i64, dims, i)),
          b.CreateConstInBoundsGEP1_64(i64, out, i));
    b.CreateCall(shapes, {out});
    b.CreateRet(b.getInt32(0));
  }
  {
    auto *fn = llvm::Function::Create(
        llvm::FunctionType::get(voidTy, {ptr}, false),
        llvm::GlobalValue::ExternalLinkage, spec.name + "_release", m);
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", fn));
    b.CreateCall(release, {fn->getArg(0)});
    b.CreateRetVoid();
  }
  buildTrainingApi(m, spec);
}
