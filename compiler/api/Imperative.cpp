// SPDX-License-Identifier: Apache-2.0
//
// The imperative operators (mxc/imperative.h): a one-node symbol over
// variables named after the operands, compiled as an inference library
// whose every variable is an input (Jit.h's cache, held for the process:
// an operator's library is built once per attributes and shapes), and run
// on the NDArray engine reading the operands and writing new outputs.

#include "mxc/imperative.h"

#include "Jit.h"

#include <algorithm>

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
  try {
    return Invoke(symbol, arrays_);
  } catch (const Error &e) {
    // An operand left out that the compiled form needs: name it (the
    // symbol made a variable for it, which the arrays lack).
    for (const std::string &name : symbol.ListArguments())
      if (!arrays_.count(name))
        throw Error(
            std::string("nd::") + op_ + ": no array for operand '" + name +
            "' (give it, or attributes that leave it out): " + e.what());
    throw;
  }
}

std::vector<NDArray> nd::Call(const std::string &op,
                              const std::vector<NDArray> &operands,
                              const std::map<std::string, std::string> &attrs) {
  const auto &table = detail::byName();
  auto it = table.find(op);
  if (it == table.end())
    throw Error("nd::Call: no operator '" + op + "'");
  return it->second(operands, attrs);
}

// MXNet's attribute text: integers, reals, "True" / "False" (or 1 / 0),
// tuples "(3, 3)" / "[3,3]" / "3", strings as they are.
const std::string *nd::detail::Attributes::find(const char *name) {
  auto it = text_.find(name);
  if (it == text_.end())
    return nullptr;
  used_.push_back(name);
  return &it->second;
}

namespace {
[[noreturn]] void badAttribute(const char *op, const char *name,
                               const std::string &text, const char *want) {
  throw Error(std::string("nd::") + op + ": attribute '" + name + "' is '" +
              text + "', not " + want);
}

bool readInt(const std::string &text, size_t &pos, int64_t &out) {
  while (pos < text.size() && text[pos] == ' ')
    ++pos;
  size_t used = 0;
  try {
    out = std::stoll(text.substr(pos), &used);
  } catch (const std::exception &) {
    return false;
  }
  pos += used;
  while (pos < text.size() && text[pos] == ' ')
    ++pos;
  return true;
}
} // namespace

void nd::detail::Attributes::get(const char *name, int64_t &out) {
  if (const std::string *t = find(name)) {
    size_t pos = 0;
    if (!readInt(*t, pos, out) || pos != t->size())
      badAttribute(op_, name, *t, "an integer");
  }
}

void nd::detail::Attributes::get(const char *name, double &out) {
  if (const std::string *t = find(name)) {
    size_t used = 0;
    try {
      out = std::stod(*t, &used);
    } catch (const std::exception &) {
      used = 0;
    }
    if (!used || used != t->size())
      badAttribute(op_, name, *t, "a number");
  }
}

void nd::detail::Attributes::get(const char *name, bool &out) {
  if (const std::string *t = find(name)) {
    if (*t == "True" || *t == "true" || *t == "1")
      out = true;
    else if (*t == "False" || *t == "false" || *t == "0")
      out = false;
    else
      badAttribute(op_, name, *t, "True or False");
  }
}

void nd::detail::Attributes::get(const char *name, std::string &out) {
  if (const std::string *t = find(name))
    out = *t;
}

void nd::detail::Attributes::get(const char *name, std::vector<int64_t> &out) {
  const std::string *t = find(name);
  if (!t)
    return;
  std::string body = *t;
  if (body.size() >= 2 && ((body.front() == '(' && body.back() == ')') ||
                           (body.front() == '[' && body.back() == ']')))
    body = body.substr(1, body.size() - 2);
  out.clear();
  size_t pos = 0;
  while (pos < body.size()) {
    int64_t v = 0;
    if (!readInt(body, pos, v))
      badAttribute(op_, name, *t, "a tuple of integers");
    out.push_back(v);
    if (pos < body.size() && body[pos] == ',')
      ++pos;
    else if (pos < body.size())
      badAttribute(op_, name, *t, "a tuple of integers");
  }
}

void nd::detail::Attributes::finish() const {
  // Tuning hints MXNet writes that change no result.
  static const char *const hints[] = {"workspace", "cudnn_tune", "cudnn_off",
                                      "num_args"};
  for (const auto &[name, value] : text_) {
    if (std::find(used_.begin(), used_.end(), name) != used_.end() ||
        name.rfind("__", 0) == 0 ||
        std::find(std::begin(hints), std::end(hints), name) != std::end(hints))
      continue;
    // What MXNet may spell out at the one value mxc implements.
    if ((name == "layout" &&
         (value == "NCHW" || value == "NCW" || value == "None")) ||
        (name == "dtype" && (value == "float32" || value == "None")))
      continue;
    if (name == "layout" || name == "dtype")
      throw Error(std::string("nd::") + op_ + ": " + name + " '" + value +
                  "' (only " + (name == "layout" ? "NCHW / NCW" : "float32") +
                  ")");
    throw Error(std::string("nd::") + op_ + ": no attribute '" + name + "'");
  }
}

#include "compiler/api/nd_ops.cpp.inc"

} // namespace mx
