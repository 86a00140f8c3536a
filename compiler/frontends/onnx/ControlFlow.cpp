// SPDX-License-Identifier: Apache-2.0
// ONNX's control flow, unrolled at compile time: If imports the branch its
// constant condition picks, Loop its body once per iteration (the trip count
// and every condition must be constants), SequenceMap its body once per
// element. A body's values are renamed per copy so that copies do not meet.
#include "compiler/frontends/onnx/ImporterImpl.h"

#include <limits>
#include <set>

using namespace mlir;

namespace mxc::onnx {

using Renames = std::map<std::string, std::string>;

/// Renames, in `graph` and its subgraphs, the names it reads from outside
/// itself (not its inputs, initializers or node outputs) by `rename`.
static void renameOuterNames(::onnx::GraphProto &graph, const Renames &rename);

/// Renames the outer names the subgraphs of `node`'s attributes read.
static void renameInSubgraphs(::onnx::NodeProto &node, const Renames &rename) {
  for (auto &a : *node.mutable_attribute()) {
    if (a.has_g())
      renameOuterNames(*a.mutable_g(), rename);
    for (auto &g : *a.mutable_graphs())
      renameOuterNames(g, rename);
  }
}

static void renameOuterNames(::onnx::GraphProto &graph, const Renames &rename) {
  std::set<std::string> local;
  for (const auto &i : graph.input())
    local.insert(i.name());
  for (const auto &i : graph.initializer())
    local.insert(i.name());
  for (const auto &node : graph.node())
    for (const std::string &o : node.output())
      local.insert(o);
  auto renamed = [&](std::string &name) {
    auto r = rename.find(name);
    if (!name.empty() && !local.count(name) && r != rename.end())
      name = r->second;
  };
  for (auto &node : *graph.mutable_node()) {
    for (std::string &in : *node.mutable_input())
      renamed(in);
    renameInSubgraphs(node, rename);
  }
  for (auto &o : *graph.mutable_output())
    renamed(*o.mutable_name());
}

/// Imports `body`'s nodes under names prefixed by `prefix`; `rename` holds
/// the body inputs' new names and receives its values'.
static llvm::Error importBody(ContainerNode &c, const ::onnx::GraphProto &body,
                              const std::string &prefix, Renames &rename) {
  if (body.initializer_size() || body.sparse_initializer_size())
    return c.error("initializers in a subgraph are not supported");
  for (const ::onnx::NodeProto &bodyNode : body.node()) {
    ::onnx::NodeProto made = bodyNode;
    for (std::string &in : *made.mutable_input()) {
      auto r = rename.find(in);
      if (!in.empty() && r != rename.end())
        in = r->second;
    }
    // Subgraphs of the node (an If in a Loop body) may name this body's
    // values too.
    renameInSubgraphs(made, rename);
    for (std::string &o : *made.mutable_output()) {
      if (o.empty())
        continue;
      rename[o] = prefix + o;
      o = prefix + o;
    }
    if (llvm::Error e = c.importMade(std::move(made)))
      return e;
  }
  return llvm::Error::success();
}

/// The value body output `name` became, or "" when the body made none.
static std::string bodyOutput(ContainerNode &c, const Renames &rename,
                              const std::string &name) {
  auto r = rename.find(name);
  std::string v = r == rename.end() ? name : r->second;
  return c.im.isValue(v) ? v : std::string();
}

/// The axis along which run-time If outputs `t` and `e` may differ: the
/// one that is counted (data-dependent) in either, else the one static
/// extent where they differ; -1 when there is none such (other ranks,
/// types, or more axes differ).
static int64_t differingAxis(Importer &im, const Tensor &t, const Tensor &e) {
  auto ts = im.shapeOf(t), es = im.shapeOf(e);
  if (ts.size() != es.size() || im.typeOf(t) != im.typeOf(e) ||
      (t.count && e.count && t.countAxis != e.countAxis) ||
      llvm::any_of(ts, ShapedType::isDynamic) ||
      llvm::any_of(es, ShapedType::isDynamic))
    return -1;
  int64_t axis = t.count ? t.countAxis : e.count ? e.countAxis : -1;
  for (size_t d = 0; d < ts.size(); ++d)
    if (ts[d] != es[d] && int64_t(d) != axis) {
      if (axis >= 0)
        return -1;
      axis = d;
    }
  return axis;
}

/// Output k of a run-time If whose branches' outputs `names` differ in
/// their extent along `axis` (one of them counted, or empty): each padded
/// to the larger bound, picked by the condition, with the count picked
/// alike.
static llvm::Error importCountedIfOutput(ContainerNode &c, int k,
                                         const std::string (&names)[2],
                                         int64_t axis) {
  Importer &im = c.im;
  const std::string &out = c.n.output(k);
  int64_t bound = 0;
  for (const std::string &name : names)
    bound = std::max(bound, im.shapeOf(im.tensors[name])[axis]);
  std::string padded[2], counts[2];
  for (int b = 0; b < 2; ++b) {
    Tensor t = im.tensors[names[b]];
    std::string tag = out + "#" + std::to_string(b);
    int64_t extent = im.shapeOf(t)[axis];
    counts[b] = tag + "#count";
    if (t.count) {
      Tensor count;
      count.value = t.count;
      im.tensors[counts[b]] = count;
    } else {
      Const n(TP::INT64, {});
      n.setInt(0, extent);
      c.setConst(counts[b], std::move(n));
    }
    // The value without its count (a Concat would compact it), then the
    // padding after it.
    std::string plain = tag + "#plain";
    t.count = Value(), t.countAxis = -1;
    im.tensors[plain] = t;
    padded[b] = plain;
    if (extent == bound)
      continue;
    std::vector<int64_t> pad = im.shapeOf(t);
    pad[axis] = bound - extent;
    std::string zero = tag + "#zero", shape = tag + "#shape",
                fill = tag + "#fill";
    c.setConst(zero, Const(im.typeOf(t), {}));
    c.setConst(shape, Const::ofInts(pad));
    ::onnx::NodeProto expand =
        ContainerNode::makeNode("Expand", {zero, shape}, {fill}, 0);
    expand.clear_attribute();
    if (llvm::Error err = c.importMade(std::move(expand)))
      return err;
    padded[b] = tag + "#padded";
    std::vector<std::string> parts = {plain};
    if (extent > 0)
      parts.push_back(fill);
    else
      parts = {fill};
    ::onnx::NodeProto join =
        ContainerNode::makeNode("Concat", parts, {padded[b]}, axis);
    if (llvm::Error err = c.importMade(std::move(join)))
      return err;
  }
  std::string count = out + "#count";
  for (auto [from, to] : {std::pair{padded, out}, std::pair{counts, count}}) {
    ::onnx::NodeProto made = ContainerNode::makeNode(
        "Where", {c.input(0), from[0], from[1]}, {to}, 0);
    made.clear_attribute();
    if (llvm::Error err = c.importMade(std::move(made)))
      return err;
  }
  Tensor &y = im.tensors[out];
  y.count = im.materialize(count);
  y.countAxis = axis;
  return llvm::Error::success();
}

/// If with a run-time condition: both branches imported (ONNX's branches
/// have no side effects), each output the then-branch's value where the
/// condition holds and the else-branch's elsewhere. Needs tensor outputs of
/// the same type and shape from both, or differing only in an extent the
/// data decides (or an empty one), which the output then counts.
static llvm::Error importSelectedIf(ContainerNode &c) {
  const ::onnx::NodeProto &n = c.n;
  if (!c.isTensor(c.input(0)))
    return c.error("condition '" + c.input(0) + "' is not a tensor");
  Importer &im = c.im;
  if (numElements(im.shapeOf(im.tensors[c.input(0)])) != 1 ||
      im.typeOf(im.tensors[c.input(0)]) != TP::BOOL)
    return c.error("condition '" + c.input(0) + "' must be one bool");
  std::vector<std::string> values[2];
  for (int b = 0; b < 2; ++b) {
    const char *branch = b == 0 ? "then_branch" : "else_branch";
    auto body = c.graphAttribute(branch);
    if (!body)
      return body.takeError();
    if ((*body)->output_size() != n.output_size())
      return c.error("the " + Twine(branch) + " makes " +
                     Twine((*body)->output_size()) + " outputs; the node has " +
                     Twine(n.output_size()));
    Renames rename;
    if (llvm::Error e =
            importBody(c, **body, im.nodeName + "#" + branch + "#", rename))
      return e;
    for (int k = 0; k < n.output_size(); ++k) {
      std::string v = bodyOutput(c, rename, (*body)->output(k).name());
      if (v.empty() || !c.isTensor(v))
        return c.error("condition '" + c.input(0) +
                       "' must be a compile-time constant here: branch "
                       "output '" +
                       (*body)->output(k).name() +
                       "' is not a tensor (run-time conditions with sequence "
                       "or optional outputs are not supported)");
      values[b].push_back(v);
    }
  }
  for (int k = 0; k < n.output_size(); ++k) {
    const Tensor &t = im.tensors[values[0][k]], &e = im.tensors[values[1][k]];
    if (int64_t axis = differingAxis(im, t, e);
        axis >= 0 && (t.count || e.count || im.shapeOf(t)[axis] == 0 ||
                      im.shapeOf(e)[axis] == 0)) {
      const std::string names[2] = {values[0][k], values[1][k]};
      if (llvm::Error err = importCountedIfOutput(c, k, names, axis))
        return err;
      continue;
    }
    if (im.shapeOf(t) != im.shapeOf(e) || im.typeOf(t) != im.typeOf(e) ||
        t.count || e.count)
      return c.error("condition '" + c.input(0) +
                     "' must be a compile-time constant here: output " +
                     Twine(k) + " is " + typeName(im.typeOf(t)) + " " +
                     shapeText(im.shapeOf(t)) + " from the then-branch but " +
                     typeName(im.typeOf(e)) + " " + shapeText(im.shapeOf(e)) +
                     " from the else-branch (run-time conditions between "
                     "branches of other types or shapes are not supported)");
    ::onnx::NodeProto made = ContainerNode::makeNode(
        "Where", {c.input(0), values[0][k], values[1][k]}, {n.output(k)}, 0);
    made.clear_attribute();
    if (llvm::Error err = c.importMade(std::move(made)))
      return err;
  }
  return llvm::Error::success();
}

llvm::Error importIf(ContainerNode &c) {
  if (llvm::Error e = c.allowAttributes({"then_branch", "else_branch"}))
    return e;
  // A condition known at compile time picks the branch to import; one known
  // only at run time, both, the outputs picked element by element.
  std::optional<bool> cond = c.constBool(c.input(0));
  if (!cond)
    return importSelectedIf(c);
  const char *branch = *cond ? "then_branch" : "else_branch";
  auto body = c.graphAttribute(branch);
  if (!body)
    return body.takeError();
  const ::onnx::NodeProto &n = c.n;
  if ((*body)->output_size() != n.output_size())
    return c.error("the branch makes " + Twine((*body)->output_size()) +
                   " outputs; the node has " + Twine(n.output_size()));
  Renames rename;
  if (llvm::Error e =
          importBody(c, **body, c.im.nodeName + "#" + branch + "#", rename))
    return e;
  for (int k = 0; k < n.output_size(); ++k) {
    std::string v = bodyOutput(c, rename, (*body)->output(k).name());
    if (v.empty())
      return c.error("branch output '" + (*body)->output(k).name() +
                     "' is not computed");
    c.forwardValue(v, n.output(k));
  }
  return llvm::Error::success();
}

/// The loop's trip count, if it has one (else the largest int64).
static llvm::Expected<int64_t> tripCount(ContainerNode &c) {
  if (c.input(0).empty())
    return std::numeric_limits<int64_t>::max();
  if (auto m = c.constInt(c.input(0)))
    return *m;
  return c.error("trip count '" + c.input(0) +
                 "' must be a compile-time constant (loops are "
                 "unrolled; run-time trip counts are not supported)");
}

/// The value of loop condition `name`, which `shown` names in the error.
static llvm::Expected<bool>
loopCondition(ContainerNode &c, const std::string &name, const Twine &shown) {
  if (std::optional<bool> v = c.constBool(name))
    return *v;
  return c.error(shown +
                 " must be a compile-time constant (loops are unrolled; "
                 "run-time conditions are not supported)");
}

/// The `body` attribute of a Loop or SequenceMap, its only attribute.
static llvm::Expected<const ::onnx::GraphProto *>
bodyAttribute(ContainerNode &c) {
  if (llvm::Error e = c.allowAttributes({"body"}))
    return std::move(e);
  return c.graphAttribute("body");
}

llvm::Error importLoop(ContainerNode &c) {
  // Unrolled: the trip count and every iteration's condition must be
  // known at compile time.
  auto bodyOr = bodyAttribute(c);
  if (!bodyOr)
    return bodyOr.takeError();
  const ::onnx::GraphProto &body = **bodyOr;
  const ::onnx::NodeProto &n = c.n;
  int64_t carried = n.input_size() - 2;
  if (carried < 0 || body.input_size() != carried + 2 ||
      body.output_size() < carried + 1 ||
      n.output_size() != body.output_size() - 1)
    return c.error("the body's inputs and outputs do not match the node's");
  auto trips = tripCount(c);
  if (!trips)
    return trips.takeError();
  bool cond = true;
  if (!c.input(1).empty()) {
    auto given = loopCondition(c, c.input(1), "condition '" + c.input(1) + "'");
    if (!given)
      return given.takeError();
    cond = *given;
  }
  if (c.input(0).empty() && c.input(1).empty())
    return c.error("a loop without a trip count or condition never ends");
  constexpr int64_t kMaxTrips = 4096;
  std::vector<std::string> values;
  for (int64_t k = 0; k < carried; ++k)
    values.push_back(c.input(k + 2));
  int64_t scans = body.output_size() - 1 - carried;
  std::vector<std::vector<std::string>> scanned(scans);
  for (int64_t i = 0; i < *trips && cond; ++i) {
    if (i == kMaxTrips)
      return c.error("more than " + Twine(kMaxTrips) + " iterations to unroll");
    std::string prefix = c.im.nodeName + "#" + std::to_string(i) + "#";
    Renames rename;
    Const iter(TP::INT64, {});
    iter.setInt(0, i);
    c.setConst(prefix + body.input(0).name(), std::move(iter));
    Const running(TP::BOOL, {});
    running.setInt(0, 1);
    c.setConst(prefix + body.input(1).name(), std::move(running));
    for (int k = 0; k < body.input_size(); ++k) {
      if (k >= 2)
        c.forwardValue(values[k - 2], prefix + body.input(k).name());
      rename[body.input(k).name()] = prefix + body.input(k).name();
    }
    if (llvm::Error e = importBody(c, body, prefix, rename))
      return e;
    auto next =
        loopCondition(c, bodyOutput(c, rename, body.output(0).name()),
                      "the body's condition '" + body.output(0).name() + "'");
    if (!next)
      return next.takeError();
    cond = *next;
    for (int64_t k = 0; k < carried + scans; ++k) {
      std::string v = bodyOutput(c, rename, body.output(k + 1).name());
      if (v.empty())
        return c.error("body output '" + body.output(k + 1).name() +
                       "' is not computed");
      if (k < carried)
        values[k] = v;
      else
        scanned[k - carried].push_back(v);
    }
  }
  for (int64_t k = 0; k < carried; ++k)
    c.forwardValue(values[k], n.output(k));
  // Scan outputs stack the iterations' values along a new first axis.
  for (int64_t k = 0; k < scans; ++k) {
    const std::string &to = n.output(carried + k);
    if (scanned[k].empty())
      return c.error("scan output '" + to +
                     "' of a loop that runs no iteration is not supported");
    for (const std::string &v : scanned[k])
      if (!c.isTensor(v))
        return c.error("scan output '" + to + "' is not a tensor");
    if (llvm::Error e = c.importConcat(scanned[k], to, 0, /*stack=*/true))
      return e;
  }
  return llvm::Error::success();
}

/// `x` cut along `axis` into its `count` slices, each without that axis:
/// their names.
static llvm::Expected<std::vector<std::string>>
slicesAlong(ContainerNode &c, const std::string &x, int64_t axis, int64_t count,
            const std::string &prefix) {
  std::vector<std::string> kept, names;
  for (int64_t k = 0; k < count; ++k) {
    names.push_back(prefix + x + "[" + std::to_string(k) + "]");
    kept.push_back(names.back() + "#kept");
  }
  ::onnx::NodeProto made = ContainerNode::makeNode("Split", {x}, kept, axis);
  c.addIntsOperand(made, "split", prefix + x + "#split",
                   std::vector<int64_t>(count, 1));
  if (llvm::Error e = c.importMade(std::move(made)))
    return std::move(e);
  for (int64_t k = 0; k < count; ++k)
    if (llvm::Error e = c.importReshape("Squeeze", kept[k], names[k], axis))
      return std::move(e);
  return names;
}

/// Scan, unrolled over the scanned axis's static extent: each step imports
/// the body on the states and the scan inputs' slices; the scan outputs
/// stack the steps' values. Scan-8's batch axis runs the whole scan once
/// per batch element.
llvm::Error importScan(ContainerNode &c) {
  if (llvm::Error e =
          c.allowAttributes({"body", "num_scan_inputs", "scan_input_axes",
                             "scan_input_directions", "scan_output_axes",
                             "scan_output_directions", "directions"}))
    return e;
  auto bodyOr = c.graphAttribute("body");
  if (!bodyOr)
    return bodyOr.takeError();
  const ::onnx::GraphProto &body = **bodyOr;
  const ::onnx::NodeProto &n = c.n;
  bool batched = c.im.opset < 9; // Scan-8: sequence_lens, then a batch axis
  int first = batched ? 1 : 0;
  int64_t m = c.intAttribute("num_scan_inputs", 0);
  int64_t states = n.input_size() - first - m;
  int64_t scanOutputs = body.output_size() - states;
  if (m < 1 || states < 0 || scanOutputs < 0 ||
      body.input_size() != states + m || n.output_size() != body.output_size())
    return c.error("the body's inputs and outputs do not match the node's");
  if (batched && !c.input(0).empty())
    return c.error("sequence_lens is not supported (every sequence is scanned "
                   "whole)");
  auto ints = [&](StringRef name, int64_t count) {
    std::vector<int64_t> v(count, 0);
    if (const auto *a = c.attribute(name))
      v.assign(a->ints().begin(), a->ints().end());
    return v;
  };
  auto inAxes = ints("scan_input_axes", m);
  auto inDirs = ints(batched ? "directions" : "scan_input_directions", m);
  auto outAxes = ints("scan_output_axes", scanOutputs);
  auto outDirs = ints("scan_output_directions", scanOutputs);
  if ((int64_t)inAxes.size() != m || (int64_t)inDirs.size() != m ||
      (int64_t)outAxes.size() != scanOutputs ||
      (int64_t)outDirs.size() != scanOutputs)
    return c.error("the scan axes and directions do not match the inputs and "
                   "outputs");
  std::vector<std::string> inputs(n.input().begin() + first, n.input().end());
  for (const std::string &in : inputs)
    if (!c.isTensor(in))
      return c.error("input '" + in + "' is not a tensor");
  int64_t batch = 1;
  std::vector<std::vector<std::string>> perBatch(1, inputs);
  std::string prefix = c.im.nodeName + "#";
  if (batched) {
    // Every input's axis 0 is the batch: one scan per element.
    batch = c.im.shapeOf(c.im.tensors[inputs[0]])[0];
    perBatch.assign(batch, {});
    for (const std::string &in : inputs) {
      if (c.im.shapeOf(c.im.tensors[in])[0] != batch)
        return c.error("input '" + in + "' does not have the batch extent " +
                       Twine(batch));
      auto cut = slicesAlong(c, in, 0, batch, prefix + "batch#");
      if (!cut)
        return cut.takeError();
      for (int64_t b = 0; b < batch; ++b)
        perBatch[b].push_back((*cut)[b]);
    }
  }
  std::vector<std::vector<std::string>> outputs(n.output_size());
  for (int64_t b = 0; b < batch; ++b) {
    std::vector<std::string> &in = perBatch[b];
    std::string at = prefix + std::to_string(b) + "#";
    // Each scan input's slices, in the order the steps take them.
    int64_t length = -1;
    std::vector<std::vector<std::string>> slices(m);
    for (int64_t k = 0; k < m; ++k) {
      auto shape = c.im.shapeOf(c.im.tensors[in[states + k]]);
      int64_t axis =
          inAxes[k] < 0 ? inAxes[k] + (int64_t)shape.size() : inAxes[k];
      if (axis < 0 || axis >= (int64_t)shape.size() ||
          ShapedType::isDynamic(shape[axis]))
        return c.error("scan input '" + in[states + k] +
                       "' has no static axis " + Twine(inAxes[k]));
      if (length >= 0 && shape[axis] != length)
        return c.error("the scan inputs' scanned extents differ");
      length = shape[axis];
      constexpr int64_t kMaxSteps = 4096;
      if (length > kMaxSteps)
        return c.error("more than " + Twine(kMaxSteps) + " steps to unroll");
      auto cut = slicesAlong(c, in[states + k], axis, length, at + "scan#");
      if (!cut)
        return cut.takeError();
      slices[k] = std::move(*cut);
      if (inDirs[k])
        std::reverse(slices[k].begin(), slices[k].end());
    }
    std::vector<std::string> values(in.begin(), in.begin() + states);
    std::vector<std::vector<std::string>> scanned(scanOutputs);
    for (int64_t t = 0; t < length; ++t) {
      std::string step = at + std::to_string(t) + "#";
      Renames rename;
      for (int k = 0; k < body.input_size(); ++k) {
        c.forwardValue(k < states ? values[k] : slices[k - states][t],
                       step + body.input(k).name());
        rename[body.input(k).name()] = step + body.input(k).name();
      }
      if (llvm::Error e = importBody(c, body, step, rename))
        return e;
      for (int64_t k = 0; k < body.output_size(); ++k) {
        std::string v = bodyOutput(c, rename, body.output(k).name());
        if (v.empty())
          return c.error("body output '" + body.output(k).name() +
                         "' is not computed");
        if (k < states)
          values[k] = v;
        else
          scanned[k - states].push_back(v);
      }
    }
    for (int64_t k = 0; k < states; ++k)
      outputs[k].push_back(values[k]);
    for (int64_t k = 0; k < scanOutputs; ++k) {
      if (scanned[k].empty())
        return c.error("scan output '" + n.output(states + k) +
                       "' of an empty scan is not supported");
      if (outDirs[k])
        std::reverse(scanned[k].begin(), scanned[k].end());
      std::string stacked =
          batched ? at + "out#" + n.output(states + k) : n.output(states + k);
      if (llvm::Error e = c.importConcat(scanned[k], stacked, outAxes[k],
                                         /*stack=*/true))
        return e;
      outputs[states + k].push_back(stacked);
    }
  }
  for (int64_t k = 0; k < n.output_size(); ++k) {
    if (!batched && k >= states)
      continue; // concatenated into place above
    if (!batched) {
      c.forwardValue(outputs[k][0], n.output(k));
      continue;
    }
    if (llvm::Error e =
            c.importConcat(outputs[k], n.output(k), 0, /*stack=*/true))
      return e;
  }
  return llvm::Error::success();
}

llvm::Error importSequenceMap(ContainerNode &c) {
  // The body once per element, its values renamed per iteration.
  auto bodyOr = bodyAttribute(c);
  if (!bodyOr)
    return bodyOr.takeError();
  auto first = c.sequenceInput(0);
  if (!first)
    return first.takeError();
  const ::onnx::GraphProto &body = **bodyOr;
  const ::onnx::NodeProto &n = c.n;
  if (body.input_size() != n.input_size() ||
      body.output_size() != n.output_size())
    return c.error("the body takes " + Twine(body.input_size()) +
                   " inputs and makes " + Twine(body.output_size()) +
                   " outputs; the node has " + Twine(n.input_size()) + " and " +
                   Twine(n.output_size()));
  size_t count = first->size();
  std::vector<std::vector<std::string>> results(n.output_size());
  for (size_t i = 0; i < count; ++i) {
    std::string prefix = c.im.nodeName + "#" + std::to_string(i) + "#";
    Renames rename;
    for (int k = 0; k < n.input_size(); ++k) {
      std::string name = prefix + body.input(k).name();
      auto s = c.im.sequences.find(c.input(k));
      if (s != c.im.sequences.end()) {
        if (s->second.size() != count)
          return c.error("sequence '" + c.input(k) + "' has " +
                         Twine(s->second.size()) + " elements, '" + c.input(0) +
                         "' " + Twine(count));
        c.copyTensor(s->second[i], name);
      } else if (c.isTensor(c.input(k))) {
        c.copyTensor(c.input(k), name);
      } else {
        return c.error("input '" + c.input(k) +
                       "' is neither a sequence nor a tensor");
      }
      rename[body.input(k).name()] = name;
    }
    if (llvm::Error e = importBody(c, body, prefix, rename))
      return e;
    for (int k = 0; k < n.output_size(); ++k) {
      auto r = rename.find(body.output(k).name());
      if (r == rename.end() || !c.isTensor(r->second))
        return c.error("body output '" + body.output(k).name() +
                       "' is not a tensor the body computes");
      results[k].push_back(r->second);
    }
  }
  for (int k = 0; k < n.output_size(); ++k)
    c.setSequence(n.output(k), results[k]);
  return llvm::Error::success();
}

} // namespace mxc::onnx
