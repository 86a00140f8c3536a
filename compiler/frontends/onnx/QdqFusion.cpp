// SPDX-License-Identifier: Apache-2.0
// QDQ models (QuantizeLinear / DequantizeLinear around float operators: ONNX
// Runtime's recommended format, and what torch exports) as integer
// operators. When the import reaches a QuantizeLinear that ends
//
//   DequantizeLinear(x) -> Conv | MatMul | Gemm [-> Relu] -> QuantizeLinear
//   DequantizeLinear(a), DequantizeLinear(b) -> Add [-> Relu] -> QuantizeLinear
//   DequantizeLinear(x) -> MaxPool | Flatten | Reshape | Transpose | Squeeze |
//     Unsqueeze -> QuantizeLinear (one scale and zero point)
//   DequantizeLinear(a), DequantizeLinear(b), ... -> Concat -> QuantizeLinear
//     (every one of the same scale and zero point)
//
// (every value before it imported, so that constants made by Constant,
// ConstantOfShape or Cast nodes, as torch exports them, are known) whose
// weight is the DequantizeLinear of a constant (int8 or uint8, one
// scale or one per output channel), whose bias (Conv, Gemm) is the
// DequantizeLinear of a constant int32 with the scale x_scale * w_scale,
// and whose activations are quantized per tensor, becomes QLinearConv /
// QLinearMatMul / QGemm / QLinearAdd (the last two ONNX Runtime's, domain
// com.microsoft) on the quantized tensors themselves; a Relu becomes the
// quantized output's maximum with its zero point, which is exactly the
// quantization of Relu's output. The operators then run on integers and
// requantize as ONNX Runtime runs such a model, where the float form
// (dequantize, compute in float, quantize) differs from it wherever a
// float sum lands next to a rounding boundary (1 output of 25,088 in a
// 256-channel 3x3 layer).
#include "compiler/frontends/onnx/ImporterImpl.h"
#include "compiler/frontends/onnx/OpTable.h"

#include "llvm/ADT/StringMap.h"

#include <optional>
#include <vector>

namespace mxc::onnx {

struct Importer::QdqUses {
  llvm::StringMap<int> producer, count;

  explicit QdqUses(const ::onnx::GraphProto &g) {
    for (int i = 0; i < g.node_size(); ++i) {
      for (const std::string &o : g.node(i).output())
        producer[o] = i;
      for (const std::string &in : g.node(i).input())
        if (!in.empty())
          ++count[in];
    }
    for (const auto &o : g.output())
      ++count[o.name()];
  }
  int uses(const std::string &v) const { return count.lookup(v); }
};

std::optional<std::vector<::onnx::NodeProto>>
Importer::fuseAtQuantize(const ::onnx::NodeProto &q) {
  const ::onnx::GraphProto &g = model.graph();
  if (!qdqUses)
    qdqUses = std::make_shared<QdqUses>(g);
  const QdqUses &uses = *qdqUses;
  auto producedBy = [&](const std::string &v,
                        StringRef op) -> const ::onnx::NodeProto * {
    auto it = uses.producer.find(v);
    if (it == uses.producer.end())
      return nullptr;
    const ::onnx::NodeProto &n = g.node(it->second);
    return n.op_type() == op && (n.domain().empty() || n.domain() == "ai.onnx")
               ? &n
               : nullptr;
  };
  auto constant = [&](const std::string &v) -> const Const * {
    auto it = tensors.find(v);
    return it == tensors.end() ? nullptr : it->second.constant.get();
  };
  auto known = [&](const std::string &v) { return tensors.count(v) != 0; };
  auto typeOfValue = [&](const std::string &v) -> int32_t {
    auto it = tensors.find(v);
    return it == tensors.end() ? int32_t(TP::UNDEFINED) : typeOf(it->second);
  };
  auto eightBit = [&](int32_t t) { return t == TP::UINT8 || t == TP::INT8; };
  // A zero point that a DequantizeLinear leaves out: a constant 0 of `type`
  // (QLinearConv and QLinearMatMul require theirs).
  auto zeroPoint = [&](const ::onnx::NodeProto &dq, const std::string &name,
                       int32_t type) {
    if (!inputOf(dq, 2).empty())
      return dq.input(2);
    Tensor zero;
    zero.constant = std::make_shared<const Const>(type, std::vector<int64_t>{});
    tensors[name] = zero;
    return name;
  };
  // How many values a scale or zero point holds (-1: not known yet).
  auto count = [&](const std::string &v) -> int64_t {
    if (v.empty())
      return 1;
    auto it = tensors.find(v);
    return it == tensors.end() ? -1 : numElements(shapeOf(it->second));
  };
  if (inputOf(q, 2).empty() || count(q.input(1)) != 1 || !known(q.input(2)))
    return std::nullopt;
  std::string y = q.input(0);
  const ::onnx::NodeProto *relu = producedBy(y, "Relu");
  if (relu) {
    if (uses.uses(y) != 1)
      return std::nullopt;
    y = relu->input(0);
  }
  if (uses.uses(y) != 1)
    return std::nullopt;
  // A DequantizeLinear of an 8-bit tensor with one scale and zero point.
  auto perTensor = [&](const std::string &v) -> const ::onnx::NodeProto * {
    const ::onnx::NodeProto *d = producedBy(v, "DequantizeLinear");
    return d && eightBit(typeOfValue(d->input(0))) && count(d->input(1)) == 1 &&
                   count(inputOf(*d, 2)) == 1
               ? d
               : nullptr;
  };
  // DequantizeLinear -> MaxPool or data movement -> QuantizeLinear of one
  // scale and zero point: the maximum commutes with the (monotonic)
  // quantization, moving values changes none, and the quantization of a
  // dequantized byte is the byte, so the operator runs on the 8-bit tensor
  // itself (its other inputs, a shape or axes, as they are).
  // (A Concat's every input is such a DequantizeLinear.)
  const ::onnx::NodeProto *pool = nullptr;
  for (StringRef mover : {"MaxPool", "Flatten", "Reshape", "Transpose",
                          "Squeeze", "Unsqueeze", "Concat"})
    if ((pool = producedBy(y, mover)))
      break;
  if (pool && !relu && pool->output_size() == 1) {
    const Const *sy = constant(q.input(1)), *zy = constant(q.input(2));
    // The 8-bit tensor under data input i, if its quantization is y's.
    auto bytes = [&](int i) -> std::optional<std::string> {
      const ::onnx::NodeProto *d = perTensor(pool->input(i));
      std::string dz = d ? inputOf(*d, 2) : "";
      const Const *sx = d ? constant(d->input(1)) : nullptr;
      const Const *zx = dz.empty() ? nullptr : constant(dz);
      if (!sx || !zx || !sy || !zy || zx->type != zy->type ||
          typeOfValue(d->input(0)) != zy->type ||
          static_cast<float>(sx->f(0)) != static_cast<float>(sy->f(0)) ||
          zx->f(0) != zy->f(0))
        return std::nullopt;
      return d->input(0);
    };
    ::onnx::NodeProto moved = *pool;
    int data = pool->op_type() == "Concat" ? pool->input_size() : 1;
    for (int i = 0; i < data; ++i) {
      std::optional<std::string> x = bytes(i);
      if (!x)
        return std::nullopt;
      moved.set_input(i, *x);
    }
    moved.set_output(0, q.output(0));
    return std::vector<::onnx::NodeProto>{moved};
  }
  const ::onnx::NodeProto *op = nullptr;
  StringRef kind;
  for (StringRef k : {"Conv", "MatMul", "Gemm", "Add"})
    if ((op = producedBy(y, k))) {
      kind = k;
      break;
    }
  if (!op || op->input_size() < 2)
    return std::nullopt;
  const ::onnx::NodeProto *dx = perTensor(op->input(0));
  if (!dx)
    return std::nullopt;
  std::string prefix = q.output(0) + "/fused/";
  ::onnx::NodeProto fused;
  fused.set_name(op->name());
  auto addQuantized = [&](const ::onnx::NodeProto &dq, const char *zero) {
    fused.add_input(dq.input(0));
    fused.add_input(dq.input(1));
    fused.add_input(zeroPoint(dq, prefix + zero, typeOfValue(dq.input(0))));
  };
  if (kind == "Add") {
    // QLinearAdd: both operands and the result of one 8-bit type. Under a
    // Relu only where the output's zero point is the type's minimum, so
    // that the Relu changes nothing: ONNX Runtime computes the other sums
    // in float (dequantize, add, Relu, quantize), as the import does
    // unfused, and its QLinearAdd rounds differently now and then.
    const ::onnx::NodeProto *db = perTensor(op->input(1));
    int32_t t = typeOfValue(dx->input(0));
    if (!db || typeOfValue(db->input(0)) != t || typeOfValue(q.input(2)) != t)
      return std::nullopt;
    if (relu) {
      const Const *zy = constant(q.input(2));
      if (!zy || zy->f(0) != (t == TP::UINT8 ? 0 : -128))
        return std::nullopt;
    }
    fused.set_op_type("QLinearAdd");
    fused.set_domain(kMicrosoftDomain.str());
    addQuantized(*dx, "a_zero_point");
    addQuantized(*db, "b_zero_point");
    fused.add_input(q.input(1));
    fused.add_input(q.input(2));
  } else {
    bool conv = kind == "Conv", gemm = kind == "Gemm";
    if (gemm && (nodeIntAttr(*op, "transA", 0) != 0 ||
                 nodeFloatAttr(*op, "beta", 1.0) != 1.0))
      return std::nullopt;
    const ::onnx::NodeProto *dw = producedBy(op->input(1), "DequantizeLinear");
    if (!dw || !constant(dw->input(0)) || !known(dw->input(1)))
      return std::nullopt;
    const Const &w = *constant(dw->input(0));
    if (!eightBit(w.type) || w.shape.size() < 2 ||
        (gemm && w.shape.size() != 2))
      return std::nullopt;
    // The weight's scale: one, or one per output channel (a Conv's axis 0,
    // a MatMul's last, a Gemm's 0 with transB, else 1).
    int64_t rank = w.shape.size(), outAxis = rank - 1;
    if (conv || (gemm && nodeIntAttr(*op, "transB", 0)))
      outAxis = 0;
    int64_t scales = count(dw->input(1));
    if (scales != 1) {
      int64_t axis = nodeIntAttr(*dw, "axis", 1);
      if (axis < 0)
        axis += rank;
      if (axis != outAxis || scales != w.shape[outAxis] ||
          count(inputOf(*dw, 2)) != (inputOf(*dw, 2).empty() ? 1 : scales))
        return std::nullopt;
    }
    // A bias: int32 with the scale x_scale * w_scale and no zero point, as
    // ONNX Runtime's fusion takes it.
    std::string bias;
    if (kind != "MatMul" && !inputOf(*op, 2).empty()) {
      const ::onnx::NodeProto *db =
          producedBy(op->input(2), "DequantizeLinear");
      const Const *sx = db ? constant(dx->input(1)) : nullptr;
      const Const *sw = db ? constant(dw->input(1)) : nullptr;
      const Const *b = db ? constant(db->input(0)) : nullptr;
      const Const *sb = db ? constant(db->input(1)) : nullptr;
      bool zeroPoint = db && !inputOf(*db, 2).empty();
      const Const *zb = zeroPoint ? constant(db->input(2)) : nullptr;
      if (!sx || !sw || !b || !sb || b->type != TP::INT32 ||
          sb->size() != sw->size() || (zeroPoint && !zb))
        return std::nullopt;
      for (int64_t i = 0; zb && i < zb->size(); ++i)
        if (zb->f(i) != 0)
          return std::nullopt;
      for (int64_t i = 0; i < sb->size(); ++i)
        if (static_cast<float>(sx->f(0)) * static_cast<float>(sw->f(i)) !=
            static_cast<float>(sb->f(i)))
          return std::nullopt;
      bias = db->input(0);
    }
    addQuantized(*dx, "x_zero_point");
    fused.add_input(dw->input(0));
    fused.add_input(dw->input(1));
    fused.add_input(zeroPoint(*dw, prefix + "w_zero_point", w.type));
    if (gemm) {
      // QGemm: A, B, C, y; alpha and transB carry over.
      fused.set_op_type("QGemm");
      fused.set_domain(kMicrosoftDomain.str());
      fused.add_input(bias);
      fused.add_input(q.input(1));
      fused.add_input(q.input(2));
      for (const auto &a : op->attribute())
        if (a.name() == "alpha" || a.name() == "transB")
          *fused.add_attribute() = a;
    } else {
      fused.set_op_type(conv ? "QLinearConv" : "QLinearMatMul");
      fused.add_input(q.input(1));
      fused.add_input(q.input(2));
      if (!bias.empty())
        fused.add_input(bias);
      if (conv)
        *fused.mutable_attribute() = op->attribute();
    }
  }
  std::vector<::onnx::NodeProto> nodes;
  if (relu) {
    // Q(Relu(y)) = max(Q(y), y_zero_point): Q is monotone and Q(0) is the
    // zero point.
    std::string quantized = q.output(0) + "/before_relu";
    fused.add_output(quantized);
    ::onnx::NodeProto max;
    max.set_name(relu->name());
    max.set_op_type("Max");
    max.add_input(quantized);
    max.add_input(q.input(2));
    max.add_output(q.output(0));
    nodes = {fused, max};
  } else {
    fused.add_output(q.output(0));
    nodes = {fused};
  }
  return nodes;
}

} // namespace mxc::onnx
