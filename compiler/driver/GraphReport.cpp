// SPDX-License-Identifier: Apache-2.0
#include "compiler/driver/GraphReport.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <vector>

using namespace mlir;

namespace {

/// The node name an importer gave `op` (its NameLoc), else its op name.
std::string nodeName(Operation *op) {
  Location loc = op->getLoc();
  if (auto fused = dyn_cast<FusedLoc>(loc))
    if (!fused.getLocations().empty())
      loc = fused.getLocations().front();
  if (auto name = dyn_cast<NameLoc>(loc))
    return name.getName().str();
  return op->getName().stripDialect().str();
}

std::string shapeText(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return "?";
  if (tensor.getRank() == 0)
    return "scalar";
  std::string s;
  for (int64_t d : tensor.getShape())
    s += (s.empty() ? "" : "x") + std::to_string(d);
  return s;
}

int64_t elements(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.hasStaticShape() ? tensor.getNumElements() : 0;
}

std::string argumentName(BlockArgument arg);

/// What tells parameters from data among the forward function's arguments.
struct ArgumentKinds {
  const std::set<std::string> &dataInputs;
  size_t numInputs; // the arguments after these are the model's parameters
};

/// Whether `v` is a parameter: an argument marked mx.param / mx.aux, one
/// after the model's inputs, or one that is not a data input.
bool isParameter(Value v, const ArgumentKinds &kinds) {
  auto arg = dyn_cast<BlockArgument>(v);
  if (!arg)
    return false;
  auto fn = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp());
  if (!fn)
    return false;
  if (fn.getArgAttr(arg.getArgNumber(), "mx.param") ||
      fn.getArgAttr(arg.getArgNumber(), "mx.aux") ||
      arg.getArgNumber() >= kinds.numInputs)
    return true;
  return !kinds.dataInputs.empty() &&
         !kinds.dataInputs.count(argumentName(arg));
}

std::string argumentName(BlockArgument arg) {
  auto fn = cast<func::FuncOp>(arg.getOwner()->getParentOp());
  if (auto name =
          fn.getArgAttrOfType<StringAttr>(arg.getArgNumber(), "mx.name"))
    return name.str();
  return "input" + std::to_string(arg.getArgNumber());
}

/// One op of the forward function, as the reports see it.
struct Layer {
  Operation *op;
  std::string name, kind, shape;
  int64_t params = 0, macs = 0;
};

/// Multiply-accumulates of the contractions: convolution (out x C/groups x
/// kernel), fully connected (out x K) and the matrix products (out x K, K
/// the left operand's reduced axis); 0 for the rest.
int64_t macsOf(Operation *op, llvm::StringRef kind) {
  if (op->getNumResults() == 0 || op->getNumOperands() < 2)
    return 0;
  if (kind == "dot" || kind == "batch_dot" || kind == "matmul") {
    auto lhs = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
    if (!lhs || !lhs.hasStaticShape() || lhs.getRank() == 0)
      return 0;
    auto transposed = op->getAttrOfType<BoolAttr>("transpose_a");
    int64_t rank = lhs.getRank();
    // dot's transpose_a reduces over the first axis; batch_dot's over the
    // second last; without it, over the last.
    int64_t axis = transposed && transposed.getValue()
                       ? (kind == "dot" ? 0 : rank - 2)
                       : rank - 1;
    if (axis < 0)
      return 0;
    return elements(op->getResult(0).getType()) * lhs.getDimSize(axis);
  }
  auto weight = dyn_cast<RankedTensorType>(op->getOperand(1).getType());
  if (!weight || !weight.hasStaticShape() || weight.getRank() < 2)
    return 0;
  int64_t out = elements(op->getResult(0).getType());
  if (kind == "Convolution")
    return out * (weight.getNumElements() / weight.getDimSize(0));
  if (kind == "FullyConnected")
    return out * weight.getDimSize(1);
  return 0;
}

std::vector<Layer> layersOf(ModuleOp module, func::FuncOp &forward,
                            const ArgumentKinds &kinds) {
  forward = module.lookupSymbol<func::FuncOp>("forward");
  std::vector<Layer> layers;
  if (!forward)
    return layers;
  for (Operation &op : forward.getBody().front()) {
    if (isa<func::ReturnOp>(op))
      continue;
    Layer layer{&op, nodeName(&op), op.getName().stripDialect().str(),
                op.getNumResults() ? shapeText(op.getResult(0).getType())
                                   : "-"};
    for (Value v : op.getOperands())
      if (isParameter(v, kinds))
        layer.params += elements(v.getType());
    layer.macs = macsOf(&op, layer.kind);
    layers.push_back(layer);
  }
  return layers;
}

/// A fill color per kind of op (contractions, normalization, activations,
/// pooling, shape and joins, the output layers, the rest).
const char *colorOf(llvm::StringRef kind) {
  if (kind.contains("Convolution") || kind == "FullyConnected" ||
      kind == "dot" || kind == "batch_dot" || kind == "matmul" ||
      kind == "Gemm")
    return "#fb8072";
  if (kind.contains("Norm"))
    return "#bebada";
  if (kind == "Activation" || kind.contains("ReLU") || kind == "Relu" ||
      kind == "Sigmoid" || kind == "Tanh")
    return "#ffffb3";
  if (kind.contains("Pool"))
    return "#80b1d3";
  if (kind == "Concat" || kind == "Flatten" || kind == "Reshape" ||
      kind == "elemwise_add" || kind == "broadcast_add" || kind == "Add")
    return "#fdb462";
  if (kind.contains("Softmax") || kind.contains("Output"))
    return "#b3de69";
  return "#fccde5";
}

std::string escape(llvm::StringRef text) {
  std::string out;
  for (char c : text) {
    if (c == '"' || c == '\\')
      out += '\\';
    out += c;
  }
  return out;
}

std::string withCommas(int64_t v) {
  std::string digits = std::to_string(v), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0)
      out += ',';
    out += digits[i];
  }
  return out;
}

} // namespace

std::string mxc::forwardGraphDot(ModuleOp module, llvm::StringRef title,
                                 const std::set<std::string> &dataInputs,
                                 size_t numInputs) {
  ArgumentKinds kinds{dataInputs, numInputs};
  func::FuncOp forward;
  std::vector<Layer> layers = layersOf(module, forward, kinds);
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "digraph \"" << escape(title) << "\" {\n"
     << "  rankdir=BT;\n"
     << "  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", "
        "fontsize=10];\n"
     << "  edge [fontname=\"Helvetica\", fontsize=9];\n";
  if (!forward)
    return os << "}\n", text;
  llvm::DenseMap<Value, std::string> producer;
  for (BlockArgument arg : forward.getArguments()) {
    if (isParameter(arg, kinds))
      continue;
    std::string id = "in" + std::to_string(arg.getArgNumber());
    producer[arg] = id;
    os << "  " << id << " [shape=oval, fillcolor=\"#8dd3c7\", label=\""
       << escape(argumentName(arg)) << "\\n"
       << shapeText(arg.getType()) << "\"];\n";
  }
  for (auto [i, layer] : llvm::enumerate(layers)) {
    std::string id = "n" + std::to_string(i);
    os << "  " << id << " [fillcolor=\"" << colorOf(layer.kind)
       << "\", label=\"" << escape(layer.name) << "\\n"
       << escape(layer.kind);
    if (layer.params)
      os << "\\n" << withCommas(layer.params) << " parameters";
    os << "\"];\n";
    for (Value v : layer.op->getOperands()) {
      auto from = producer.find(v);
      if (from != producer.end())
        os << "  " << from->second << " -> " << id << " [label=\""
           << shapeText(v.getType()) << "\"];\n";
    }
    for (Value r : layer.op->getResults())
      producer[r] = id;
  }
  int outputs = 0;
  for (Value v : forward.getBody().front().getTerminator()->getOperands()) {
    std::string id = "out" + std::to_string(outputs++);
    os << "  " << id << " [shape=oval, fillcolor=\"#d9d9d9\", label=\"output\\n"
       << shapeText(v.getType()) << "\"];\n";
    auto from = producer.find(v);
    if (from != producer.end())
      os << "  " << from->second << " -> " << id << ";\n";
  }
  os << "}\n";
  return text;
}

std::string mxc::forwardSummary(ModuleOp module,
                                const std::set<std::string> &dataInputs,
                                size_t numInputs) {
  ArgumentKinds kinds{dataInputs, numInputs};
  func::FuncOp forward;
  std::vector<Layer> layers = layersOf(module, forward, kinds);
  size_t nameWidth = 5, kindWidth = 2, shapeWidth = 12;
  int64_t params = 0, macs = 0;
  for (const Layer &l : layers) {
    nameWidth = std::max(nameWidth, l.name.size());
    kindWidth = std::max(kindWidth, l.kind.size());
    shapeWidth = std::max(shapeWidth, l.shape.size());
    params += l.params;
    macs += l.macs;
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  auto row = [&](llvm::StringRef name, llvm::StringRef kind,
                 llvm::StringRef shape, llvm::StringRef p, llvm::StringRef m) {
    os << llvm::left_justify(name, nameWidth) << "  "
       << llvm::left_justify(kind, kindWidth) << "  "
       << llvm::left_justify(shape, shapeWidth) << "  "
       << llvm::right_justify(p, 14) << "  " << llvm::right_justify(m, 16)
       << "\n";
  };
  row("layer", "op", "output shape", "parameters", "MACs");
  for (const Layer &l : layers)
    row(l.name, l.kind, l.shape, l.params ? withCommas(l.params) : "",
        l.macs ? withCommas(l.macs) : "");
  row("total", "", "", withCommas(params), withCommas(macs));
  return text;
}
