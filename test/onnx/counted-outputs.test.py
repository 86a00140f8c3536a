# SPDX-License-Identifier: Apache-2.0
# counted-outputs.test's models: outputs whose extent only the data decides.
#   nms.onnx       NonMaxSuppression over 1 batch, 2 classes and 40 random boxes, the
#                  selected boxes' coordinates gathered (Gather with the kept indices),
#                  max_output_boxes_per_class 50, IoU 0.3: a detector's post-processing
#   nonzero.onnx   NonZero of x > 0, transposed (a count on axis 0 after axis 1)
#   reduce.onnx    ReduceSum and ReduceMax of NonZero's output (the padding past the
#                  count left out)
#   refused.onnx   Reshape of NonZero's output: refused, naming the node
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
