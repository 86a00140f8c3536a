// SPDX-License-Identifier: Apache-2.0
// ONNX's sequences and optionals, known at compile time: a sequence is a
// list of element tensors ("s[0]", "s[1]", ...), an optional a value or
// nothing. Their operators rename values, or (SplitToSequence,
// ConcatFromSequence) make the Split / Concat nodes that compute them.
#include "compiler/frontends/onnx/ImporterImpl.h"

using namespace mlir;

namespace mxc::onnx {

//===----------------------------------------------------------------------===//
// ContainerNode
//===----------------------------------------------------------------------===//

llvm::Error
ContainerNode::allowAttributes(std::initializer_list<StringRef> names) {
  for (const auto &a : n.attribute()) {
    if (!llvm::is_contained(names, a.name()))
      return error("attribute '" + a.name() + "' is not supported");
    attrs[a.name()] = &a;
  }
  return llvm::Error::success();
}

llvm::Expected<const ::onnx::GraphProto *>
ContainerNode::graphAttribute(StringRef name) {
  const ::onnx::AttributeProto *a = attribute(name);
  if (!a)
    return error("attribute '" + name + "' is required");
  return &a->g();
}

llvm::Expected<std::vector<std::string>>
ContainerNode::sequenceInput(int i) const {
  auto it = im.sequences.find(input(i));
  if (it == im.sequences.end())
    return error("input '" + input(i) + "' is not a sequence");
  return it->second;
}

llvm::Expected<std::vector<std::string>>
ContainerNode::sequenceOperand(std::initializer_list<StringRef> attributes) {
  if (llvm::Error e = allowAttributes(attributes))
    return std::move(e);
  return sequenceInput(0);
}

std::optional<int64_t> ContainerNode::constInt(const std::string &name) const {
  auto it = im.tensors.find(name);
  if (it == im.tensors.end() || !it->second.constant ||
      it->second.constant->size() != 1)
    return std::nullopt;
  return it->second.constant->i(0);
}

void ContainerNode::setSequence(const std::string &to,
                                const std::vector<std::string> &from) {
  std::vector<std::string> names;
  for (const std::string &e : from) {
    names.push_back(to + "[" + std::to_string(names.size()) + "]");
    copyTensor(e, names.back());
  }
  im.sequences[to] = std::move(names);
}

void ContainerNode::forwardValue(const std::string &from,
                                 const std::string &to) {
  if (im.absent.count(from)) {
    im.absent.insert(to);
  } else if (im.sequences.count(from)) {
    std::vector<std::string> elements = im.sequences[from];
    setSequence(to, elements);
  } else {
    copyTensor(from, to);
  }
}

void ContainerNode::setConst(const std::string &to, Const c) {
  im.tensors[to] = Tensor{Value(), std::make_shared<const Const>(std::move(c))};
}

llvm::Error ContainerNode::importMade(::onnx::NodeProto made) {
  made.set_name(im.nodeName);
  im.madeNodes.push_back(std::move(made));
  return im.importNode(im.madeNodes.back(), index);
}

::onnx::NodeProto
ContainerNode::makeNode(StringRef op, const std::vector<std::string> &inputs,
                        const std::vector<std::string> &outputs, int64_t axis) {
  ::onnx::NodeProto made;
  made.set_op_type(op.str());
  for (const std::string &in : inputs)
    made.add_input(in);
  for (const std::string &o : outputs)
    made.add_output(o);
  auto *a = made.add_attribute();
  a->set_name("axis");
  a->set_type(::onnx::AttributeProto::INT);
  a->set_i(axis);
  return made;
}

void ContainerNode::addIntsOperand(::onnx::NodeProto &made,
                                   const std::string &name,
                                   const std::string &valueName,
                                   ArrayRef<int64_t> values) {
  if (im.opset >= 13) {
    setConst(valueName, Const::ofInts(values));
    made.add_input(valueName);
    return;
  }
  auto *a = made.add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::INTS);
  for (int64_t v : values)
    a->add_ints(v);
}

llvm::Error ContainerNode::importReshape(StringRef op, const std::string &from,
                                         const std::string &to, int64_t axis) {
  ::onnx::NodeProto made;
  made.set_op_type(op.str());
  made.add_input(from);
  made.add_output(to);
  addIntsOperand(made, "axes", to + "#axes", {axis});
  return importMade(std::move(made));
}

llvm::Error ContainerNode::importConcat(std::vector<std::string> parts,
                                        const std::string &to, int64_t axis,
                                        bool stack) {
  if (stack) {
    for (std::string &p : parts) {
      std::string expanded = to + "#" + p;
      if (llvm::Error e = importReshape("Unsqueeze", p, expanded, axis))
        return e;
      p = expanded;
    }
  }
  return importMade(makeNode("Concat", parts, {to}, axis));
}

//===----------------------------------------------------------------------===//
// Optionals
//===----------------------------------------------------------------------===//

/// OptionalGetElement, and Identity of a sequence or optional.
llvm::Error importGetElement(ContainerNode &c) {
  if (llvm::Error e = c.allowAttributes({}))
    return e;
  if (c.n.op_type() != "Identity" && c.im.absent.count(c.input(0)))
    return c.error("optional input '" + c.input(0) + "' holds no value");
  c.forwardValue(c.input(0), c.out);
  return llvm::Error::success();
}

llvm::Error importOptional(ContainerNode &c) {
  if (llvm::Error e = c.allowAttributes({"type"}))
    return e;
  if (c.input(0).empty())
    c.im.absent.insert(c.out);
  else
    c.forwardValue(c.input(0), c.out);
  return llvm::Error::success();
}

llvm::Error importOptionalHasElement(ContainerNode &c) {
  if (llvm::Error e = c.allowAttributes({}))
    return e;
  Const has(TP::BOOL, {});
  has.setInt(0, !c.input(0).empty() && !c.im.absent.count(c.input(0)));
  c.setConst(c.out, std::move(has));
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Sequences
//===----------------------------------------------------------------------===//

llvm::Error importSequenceEmpty(ContainerNode &c) {
  if (llvm::Error e = c.allowAttributes({"dtype"}))
    return e;
  c.im.sequences[c.out] = {};
  return llvm::Error::success();
}

llvm::Error importSequenceConstruct(ContainerNode &c) {
  if (llvm::Error e = c.allowAttributes({}))
    return e;
  std::vector<std::string> elements;
  for (const std::string &in : c.n.input()) {
    if (!c.isTensor(in))
      return c.error("input '" + in + "' is not a tensor");
    elements.push_back(in);
  }
  c.setSequence(c.out, elements);
  return llvm::Error::success();
}

llvm::Error importSplitToSequence(ContainerNode &c) {
  if (llvm::Error e = c.allowAttributes({"axis", "keepdims"}))
    return e;
  Importer &im = c.im;
  std::string x = c.input(0), split = c.input(1);
  if (!c.isTensor(x))
    return c.error("input '" + x + "' is not a tensor");
  std::vector<int64_t> shape = im.shapeOf(im.tensors[x]);
  int64_t r = shape.size(), axis = c.intAttribute("axis", 0);
  if (axis < -r || axis >= r)
    return c.error("axis " + Twine(axis) + " is out of range for rank " +
                   Twine(r));
  if (axis < 0)
    axis += r;
  int64_t extent = shape[axis];
  std::vector<int64_t> sizes;
  bool squeeze = false;
  if (split.empty()) {
    sizes.assign(extent, 1);
    squeeze = c.intAttribute("keepdims", 1) == 0;
  } else {
    auto it = im.tensors.find(split);
    if (it == im.tensors.end() || !it->second.constant)
      return c.error("split '" + split + "' must be a compile-time constant");
    const Const &s = *it->second.constant;
    int64_t total = 0;
    if (s.shape.empty()) {
      int64_t size = s.i(0);
      if (size <= 0)
        return c.error("split " + Twine(size) + " must be positive");
      for (int64_t left = extent; left > 0; left -= size)
        sizes.push_back(std::min(size, left));
      total = extent;
    } else {
      for (int64_t k = 0; k < s.size(); ++k) {
        if (s.i(k) < 0)
          return c.error("split sizes must not be negative");
        sizes.push_back(s.i(k));
        total += s.i(k);
      }
    }
    if (total != extent)
      return c.error("split " + shapeText(sizes) +
                     " does not add up to extent " + Twine(extent));
  }
  std::vector<std::string> names, parts;
  for (size_t k = 0; k < sizes.size(); ++k) {
    names.push_back(c.out + "[" + std::to_string(k) + "]");
    parts.push_back(squeeze ? names.back() + "#kept" : names.back());
  }
  if (!sizes.empty()) {
    ::onnx::NodeProto made = ContainerNode::makeNode("Split", {x}, parts, axis);
    c.addIntsOperand(made, "split", c.out + "#split", sizes);
    if (llvm::Error e = c.importMade(std::move(made)))
      return e;
    if (squeeze)
      for (size_t k = 0; k < sizes.size(); ++k)
        if (llvm::Error e =
                c.importReshape("Squeeze", parts[k], names[k], axis))
          return e;
  }
  im.sequences[c.out] = std::move(names);
  return llvm::Error::success();
}

llvm::Error importSequenceLength(ContainerNode &c) {
  auto seq = c.sequenceOperand({});
  if (!seq)
    return seq.takeError();
  Const length(TP::INT64, {});
  length.setInt(0, seq->size());
  c.setConst(c.out, std::move(length));
  return llvm::Error::success();
}

/// Position input `i` of SequenceAt / Insert / Erase (`fallback` when
/// absent): a constant in [-length, length + extra).
static llvm::Expected<int64_t> position(ContainerNode &c, int i, int64_t length,
                                        int64_t fallback, int64_t extra) {
  int64_t p = fallback;
  std::optional<int64_t> given;
  if (!c.input(i).empty())
    given = c.constInt(c.input(i));
  if (given)
    p = *given;
  if ((c.input(i).empty() || given) && p >= -length && p < length + extra)
    return p < 0 ? p + length : p;
  return c.error("position '" + c.input(i) +
                 "' must be a compile-time constant scalar within the "
                 "sequence's " +
                 Twine(length) + " elements");
}

/// SequenceAt, SequenceErase.
llvm::Error importSequenceAt(ContainerNode &c) {
  auto seq = c.sequenceOperand({});
  if (!seq)
    return seq.takeError();
  auto p = position(c, 1, seq->size(), -1, 0);
  if (!p)
    return p.takeError();
  if (c.n.op_type() == "SequenceAt") {
    c.copyTensor((*seq)[*p], c.out);
    return llvm::Error::success();
  }
  seq->erase(seq->begin() + *p);
  c.setSequence(c.out, *seq);
  return llvm::Error::success();
}

llvm::Error importSequenceInsert(ContainerNode &c) {
  auto seq = c.sequenceOperand({});
  if (!seq)
    return seq.takeError();
  if (!c.isTensor(c.input(1)))
    return c.error("input '" + c.input(1) + "' is not a tensor");
  auto p = position(c, 2, seq->size(), seq->size(), 1);
  if (!p)
    return p.takeError();
  seq->insert(seq->begin() + *p, c.input(1));
  c.setSequence(c.out, *seq);
  return llvm::Error::success();
}

llvm::Error importConcatFromSequence(ContainerNode &c) {
  auto seq = c.sequenceOperand({"axis", "new_axis"});
  if (!seq)
    return seq.takeError();
  if (!c.attribute("axis"))
    return c.error("attribute 'axis' is required");
  if (seq->empty())
    return c.error("the sequence is empty: nothing to concatenate");
  int64_t axis = c.intAttribute("axis", 0);
  bool newAxis = c.intAttribute("new_axis", 0) != 0;
  if (newAxis) {
    int64_t r = c.im.shapeOf(c.im.tensors[(*seq)[0]]).size() + 1;
    if (axis < -r || axis >= r)
      return c.error("axis " + Twine(axis) + " is out of range for rank " +
                     Twine(r));
    if (axis < 0)
      axis += r;
  }
  return c.importConcat(*seq, c.out, axis, newAxis);
}

} // namespace mxc::onnx
