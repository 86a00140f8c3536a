# SPDX-License-Identifier: Apache-2.0
# counted-outputs.test's models: outputs whose extent only the data decides.
#   nms.onnx       NonMaxSuppression over 1 batch, 2 classes and 40 random boxes, the
#                  selected boxes' coordinates gathered (Gather with the kept indices),
#                  max_output_boxes_per_class 50, IoU 0.3: a detector's post-processing
#   nonzero.onnx   NonZero of x > 0, transposed (a count on axis 0 after axis 1)
#   reduce.onnx    ReduceSum and ReduceMax of NonZero's output (the padding past the
#                  count left out)
#   refused.onnx   Reshape of NonZero's output: refused, naming the node
#   postprocess.onnx  a detector's post-processing in small (below), two inputs
# and the references: torchvision.ops.nms on each class, NumPy's nonzero.
# Usage: counted-outputs.test.py OUTDIR
import os
import sys

import numpy as np
import onnx
import torch
import torchvision
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
rng = np.random.default_rng(0)


def save(name, nodes, inputs, outputs, inits=()):
    g = helper.make_graph(nodes, name, inputs, outputs,
                          [numpy_helper.from_array(v, k) for k, v in inits])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]),
              os.path.join(out, name + ".onnx"))


# NonMaxSuppression: boxes (x1, y1, x2, y2) as ONNX's (y1, x1, y2, x2).
n, classes = 40, 2
corner = rng.uniform(0, 80, (n, 2)).astype(np.float32)
size = rng.uniform(5, 30, (n, 2)).astype(np.float32)
xyxy = np.concatenate([corner, corner + size], 1)
yxyx = np.ascontiguousarray(xyxy[:, [1, 0, 3, 2]][None])
scores = rng.uniform(0, 1, (1, classes, n)).astype(np.float32)
np.save(os.path.join(out, "boxes.npy"), yxyx)
np.save(os.path.join(out, "scores.npy"), scores)
save("nms", [
    helper.make_node("NonMaxSuppression", ["boxes", "scores", "limit", "iou"], ["selected"]),
    helper.make_node("Gather", ["selected", "box_column"], ["box_index"], axis=1),
    helper.make_node("Squeeze", ["boxes", "zero"], ["boxes2d"]),
    helper.make_node("Gather", ["boxes2d", "box_index"], ["kept_boxes"], axis=0),
], [helper.make_tensor_value_info("boxes", TensorProto.FLOAT, [1, n, 4]),
    helper.make_tensor_value_info("scores", TensorProto.FLOAT, [1, classes, n])],
   [helper.make_tensor_value_info("selected", TensorProto.INT64, ["k", 3]),
    helper.make_tensor_value_info("kept_boxes", TensorProto.FLOAT, ["k", 4])],
   [("limit", np.array([50], np.int64)), ("iou", np.array([0.3], np.float32)),
    ("box_column", np.array(2, np.int64)), ("zero", np.array([0], np.int64))])
want = []
for c in range(classes):
    keep = torchvision.ops.nms(torch.from_numpy(xyxy), torch.from_numpy(scores[0, c]), 0.3)
    want += [[0, c, int(i)] for i in keep]
want = np.array(want, np.int64)
np.save(os.path.join(out, "selected_ref.npy"), want)
np.save(os.path.join(out, "kept_boxes_ref.npy"), yxyx[0][want[:, 2]])

# NonZero, transposed: (count, 2).
x = rng.standard_normal((3, 5)).astype(np.float32)
np.save(os.path.join(out, "x.npy"), x)
save("nonzero", [
    helper.make_node("Greater", ["x", "zero_f"], ["positive"]),
    helper.make_node("NonZero", ["positive"], ["where"]),
    helper.make_node("Transpose", ["where"], ["coords"], perm=[1, 0]),
], [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 5])],
   [helper.make_tensor_value_info("coords", TensorProto.INT64, ["n", 2])],
   [("zero_f", np.array(0, np.float32))])
np.save(os.path.join(out, "coords_ref.npy"), np.stack(np.nonzero(x > 0), 1))

# The positive elements themselves: NonZero's coordinates as GatherND's indices.
save("positive", [
    helper.make_node("Greater", ["x", "zero_f"], ["positive"]),
    helper.make_node("NonZero", ["positive"], ["where"]),
    helper.make_node("Transpose", ["where"], ["coords"], perm=[1, 0]),
    helper.make_node("GatherND", ["x", "coords"], ["values"]),
], [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 5])],
   [helper.make_tensor_value_info("values", TensorProto.FLOAT, ["n"])],
   [("zero_f", np.array(0, np.float32))])
np.save(os.path.join(out, "values_ref.npy"), x[x > 0])

save("reduce", [
    helper.make_node("Greater", ["x", "zero_f"], ["positive"]),
    helper.make_node("NonZero", ["positive"], ["where"], name="find"),
    helper.make_node("ReduceSum", ["where"], ["total"], name="sum_of_indices"),
    helper.make_node("ReduceMax", ["where"], ["last"], keepdims=0,
                     axes=[1]),
], [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 5])],
   [helper.make_tensor_value_info("total", TensorProto.INT64, [1, 1]),
    helper.make_tensor_value_info("last", TensorProto.INT64, [2])],
   [("zero_f", np.array(0, np.float32))])
where = np.array(np.nonzero(x > 0), np.int64)
np.save(os.path.join(out, "total_ref.npy"), where.sum(keepdims=True))
np.save(os.path.join(out, "last_ref.npy"), where.max(axis=1))

save("refused", [
    helper.make_node("NonZero", ["x"], ["where"], name="find"),
    helper.make_node("Reshape", ["where", "flat"], ["all"], name="flatten"),
], [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 5])],
   [helper.make_tensor_value_info("all", TensorProto.INT64, [None])],
   [("flat", np.array([-1], np.int64))])
print("selected", len(want), "boxes of", classes * n)

# A detector's post-processing in small, the way torchvision exports it: per class the
# scores above 0.3 (NonZero, GatherND), the best min(2, count) (TopK with a k from Shape),
# labels from ConstantOfShape(Shape(...)); the classes joined (Concat of counted tensors),
# an If on "no boxes at all", NMS over the rest, the first 4 kept.
P_BOXES, P_CLASSES, P_BEST, P_KEEP = 6, 3, 2, 4
nodes, inits = [], [("thresh", np.array(0.3, np.float32)),
                    ("best", np.array([P_BEST], np.int64)),
                    ("zero", np.array(0, np.int64)), ("one", np.array([1], np.int64)),
                    ("axis0", np.array([0], np.int64)), ("col2", np.array([2], np.int64)),
                    ("begin", np.array([0], np.int64)),
                    ("end", np.array([P_KEEP], np.int64)),
                    ("most", np.array([10], np.int64)), ("iou", np.array([0.5], np.float32))]
for c in range(P_CLASSES):
    inits.append((f"c{c}", np.array(c, np.int64)))
    nodes += [
        helper.make_node("Gather", ["scores", f"c{c}"], [f"s{c}"], axis=1),
        helper.make_node("Greater", [f"s{c}", "thresh"], [f"m{c}"]),
        helper.make_node("NonZero", [f"m{c}"], [f"nz{c}"]),
        helper.make_node("Transpose", [f"nz{c}"], [f"t{c}"], perm=[1, 0]),
        helper.make_node("GatherND", [f"s{c}", f"t{c}"], [f"sc{c}"]),
        helper.make_node("GatherND", ["boxes", f"t{c}"], [f"bx{c}"]),
        helper.make_node("Shape", [f"sc{c}"], [f"n{c}"]),
        helper.make_node("Concat", ["best", f"n{c}"], [f"kk{c}"], axis=0),
        helper.make_node("ReduceMin", [f"kk{c}"], [f"k{c}"], keepdims=1),
        helper.make_node("TopK", [f"sc{c}", f"k{c}"], [f"v{c}", f"i{c}"]),
        helper.make_node("Gather", [f"bx{c}", f"i{c}"], [f"b{c}"], axis=0),
        helper.make_node("Shape", [f"v{c}"], [f"vs{c}"]),
        helper.make_node("ConstantOfShape", [f"vs{c}"], [f"l{c}"],
                         value=numpy_helper.from_array(np.array([c], np.int64))),
    ]
nodes += [
    helper.make_node("Concat", [f"b{c}" for c in range(P_CLASSES)], ["allb"], axis=0),
    helper.make_node("Concat", [f"v{c}" for c in range(P_CLASSES)], ["alls"], axis=0),
    helper.make_node("Concat", [f"l{c}" for c in range(P_CLASSES)], ["alll"], axis=0),
    helper.make_node("Shape", ["allb"], ["allshape"]),
    helper.make_node("ReduceProd", ["allshape"], ["size"], keepdims=0),
    helper.make_node("Equal", ["size", "zero"], ["none"]),
]
empty = helper.make_graph(
    [helper.make_node("Constant", [], ["nothing"],
                      value=numpy_helper.from_array(np.zeros(0, np.int64)))],
    "empty", [], [helper.make_tensor_value_info("nothing", TensorProto.INT64, [0])])
suppress = helper.make_graph([
    helper.make_node("Unsqueeze", ["allb", "axis0"], ["nmsb"]),
    helper.make_node("Unsqueeze", ["alls", "axis0"], ["nmss1"]),
    helper.make_node("Unsqueeze", ["nmss1", "axis0"], ["nmss"]),
    helper.make_node("NonMaxSuppression", ["nmsb", "nmss", "most", "iou"], ["sel"]),
    helper.make_node("Gather", ["sel", "col2"], ["selcol"], axis=1),
    helper.make_node("Squeeze", ["selcol", "one"], ["kept"]),
], "suppress", [], [helper.make_tensor_value_info("kept", TensorProto.INT64, [None])])
nodes += [
    helper.make_node("If", ["none"], ["keep"], then_branch=empty, else_branch=suppress),
    helper.make_node("Slice", ["keep", "begin", "end"], ["first"]),
    helper.make_node("Gather", ["allb", "first"], ["det_boxes"], axis=0),
    helper.make_node("Gather", ["alls", "first"], ["det_scores"], axis=0),
    helper.make_node("Gather", ["alll", "first"], ["det_labels"], axis=0),
]
g = helper.make_graph(
    nodes, "postprocess",
    [helper.make_tensor_value_info("scores", TensorProto.FLOAT, [P_BOXES, P_CLASSES]),
     helper.make_tensor_value_info("boxes", TensorProto.FLOAT, [P_BOXES, 4])],
    [helper.make_tensor_value_info(n, t, [None] + s) for n, t, s in [
        ("det_boxes", TensorProto.FLOAT, [4]), ("det_scores", TensorProto.FLOAT, []),
        ("det_labels", TensorProto.INT64, [])]],
    [numpy_helper.from_array(v, k) for k, v in inits])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 14)]),
          os.path.join(out, "postprocess.onnx"))


def postprocess(scores, boxes):
    """The reference: NumPy and torchvision.ops.nms."""
    kept_boxes, kept_scores, kept_labels = [], [], []
    for c in range(P_CLASSES):
        idx = np.nonzero(scores[:, c] > 0.3)[0]
        order = idx[np.argsort(-scores[idx, c], kind="stable")][:P_BEST]
        kept_boxes.append(boxes[order])
        kept_scores.append(scores[order, c])
        kept_labels.append(np.full(len(order), c, np.int64))
    b, s, l = (np.concatenate(x) for x in (kept_boxes, kept_scores, kept_labels))
    keep = torchvision.ops.nms(torch.from_numpy(b[:, [1, 0, 3, 2]]),
                               torch.from_numpy(s), 0.5).numpy()[:P_KEEP]
    return b[keep], s[keep], l[keep]


for case, scale in (("some", 1.0), ("none", 0.25)):
    pscores = (rng.uniform(0, 1, (P_BOXES, P_CLASSES)) * scale).astype(np.float32)
    corner = rng.uniform(0, 20, (P_BOXES, 2)).astype(np.float32)
    pboxes = np.concatenate([corner, corner + 10], 1)[:, [1, 0, 3, 2]]
    pboxes = np.ascontiguousarray(pboxes, np.float32)
    np.save(os.path.join(out, f"pp_scores_{case}.npy"), pscores)
    np.save(os.path.join(out, f"pp_boxes_{case}.npy"), pboxes)
    for name, ref in zip(("boxes", "scores", "labels"), postprocess(pscores, pboxes)):
        np.save(os.path.join(out, f"pp_{name}_{case}_ref.npy"), ref)
    print("postprocess", case, len(ref), "detections")
