// SPDX-License-Identifier: Apache-2.0
//
// The imperative operators (mxc/imperative.h): a one-node symbol over
// variables named after the operands, compiled as an inference library
// whose every variable is an input (Jit.h's cache, held for the process:
// an operator's library is built once per attributes and shapes), and run
// on the NDArray engine reading the operands and writing new outputs.

#include "mxc/imperative.h"

#include "Jit.h"

namespace mx {
namespace {

/// Libraries of the operators called so far, kept loaded (the shared
/// cache holds them only while someone does).
std::shared_ptr<detail::Compiled>
operatorLibrary(const Symbol &symbol,
                const std::map<std::string, Shape> &shapes,
                const std::string &what) {
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<detail::Compiled>> held;
  std::string key = symbol.ToJSON();
  for (const auto &[name, shape] : shapes)
    key += "\n" + name + "=" + NDArray::shapeText(shape);
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = held.find(key); it != held.end())
      return it->second;
  }
  bool reused = false;
  auto lib = detail::compiled(symbol, shapes, ExecutorOptions{},
                              /*train=*/false, what, reused);
  mxrt_instance_options options;
  mxrt_instance_options_init(&options);
  options.num_threads = 1; // the engine runs operators side by side
  if (mxrt_instance_create(lib->model, &options, &lib->instance) != MXRT_OK)
    mx::detail::failRuntime(what);
  std::lock_guard<std::mutex> lock(mutex);
  return held.emplace(key, lib).first->second;
}

/// The name of the symbol's operator node, for messages.
std::string nodeOf(const Symbol &symbol) {
  if (symbol.outputs().empty() || !symbol.outputs()[0].node)
    return "nd::Invoke";
  return "nd: " + symbol[0].Name();
}

} // namespace

std::vector<NDArray> nd::Invoke(const Symbol &symbol,
                                const std::map<std::string, NDArray> &arrays) {
  std::string what = nodeOf(symbol);
  std::map<std::string, Shape> shapes;
  std::vector<std::string> names = symbol.ListArguments();
  for (const std::string &aux : symbol.ListAuxiliaryStates())
    names.push_back(aux);
  for (const std::string &name : names) {
    auto it = arrays.find(name);
    if (it != arrays.end() && !it->second.empty())
      shapes[name] = it->second.shape();
  }
  for (const auto &[name, array] : arrays)
    if (!shapes.count(name) && !array.empty())
      throw Error(what + ": '" + name + "' is no argument of the symbol");
  auto lib = operatorLibrary(symbol, shapes, what);
  mxrt_model *model = lib->model;
  int32_t fn = 0;
  if (mxrt_model_find_function(model, "forward", &fn) != MXRT_OK)
    mx::detail::failRuntime(what);
  // The compiled function's inputs in its order; new arrays for its
  // outputs.
  std::vector<NDArray> inputs, outputs;
  for (int32_t i = 0; i < mxrt_model_function_num_inputs(model, fn); ++i) {
    mxrt_tensor_info info;
    mxrt_model_function_input_info(model, fn, i, &info);
    auto it = arrays.find(info.name);
    if (it == arrays.end())
      throw Error(what + ": no array for '" + std::string(info.name) + "'");
    inputs.push_back(it->second);
  }
  for (int32_t i = 0; i < mxrt_model_function_num_outputs(model, fn); ++i) {
    mxrt_tensor_info info;
    mxrt_model_function_output_info(model, fn, i, &info);
    outputs.emplace_back(Shape(info.shape, info.shape + info.ndim));
  }
  NDArray::Push(
      what,
      [lib, fn, inputs, outputs, what] {
        std::vector<mxrt_tensor *> in, out;
        for (const NDArray &a : inputs)
          in.push_back(a.GetTensor());
        for (const NDArray &a : outputs)
          out.push_back(a.GetTensor());
        std::lock_guard<std::mutex> lock(lib->mutex);
        if (mxrt_instance_call(lib->instance, fn, in.data(), int32_t(in.size()),
                               out.data(), int32_t(out.size())) != MXRT_OK)
          throw Error(what + ": " + mxrt_last_error());
      },
      inputs, outputs);
  return outputs;
}

Symbol nd::detail::Operands::add(const std::string &name,
                                 const NDArray &array) {
  if (array.empty())
    return Symbol();
  arrays_[name] = array;
  return Symbol::Variable(name);
}

std::vector<Symbol>
nd::detail::Operands::add(const std::string &name,
                          const std::vector<NDArray> &arrays) {
  std::vector<Symbol> symbols;
  for (size_t i = 0; i < arrays.size(); ++i)
    symbols.push_back(add(name + std::to_string(i), arrays[i]));
  return symbols;
}

std::vector<NDArray> nd::detail::Operands::run(const Symbol &symbol) const {
  // A parameter operand left out becomes a variable the arrays lack.
  for (const std::string &name : symbol.ListArguments())
    if (!arrays_.count(name) && name.find("label") == std::string::npos)
      throw Error(std::string("nd::") + op_ + ": no array for operand '" +
                  name + "' (give it, or attributes that leave it out)");
  return Invoke(symbol, arrays_);
}

#include "compiler/api/nd_ops.cpp.inc"

} // namespace mx
