# SPDX-License-Identifier: Apache-2.0
# constant-folding.test's models: fold.onnx adds an int64 input to the
# concatenation of Div, Mul and Mod of constants a = [INT64_MIN, 2^62, 7, -7]
# and b = [-1, 4, -1, 3]; range.onnx folds Range(0, 1e18, 1).
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]


def const(name, value, dtype):
    return helper.make_node("Constant", [], [name], value=numpy_helper.from_array(
        np.array(value, dtype), name + "_value"))


nodes = [const("a", [-2**63, 2**62, 7, -7], np.int64),
         const("b", [-1, 4, -1, 3], np.int64),
         helper.make_node("Div", ["a", "b"], ["d"]),
         helper.make_node("Mul", ["a", "b"], ["m"]),
         helper.make_node("Mod", ["a", "b"], ["r"]),
         helper.make_node("Concat", ["d", "m", "r"], ["c"], axis=0),
         helper.make_node("Add", ["x", "c"], ["y"])]
graph = helper.make_graph(
    nodes, "fold", [helper.make_tensor_value_info("x", TensorProto.INT64, [12])],
    [helper.make_tensor_value_info("y", TensorProto.INT64, [12])])
onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]),
          os.path.join(out, "fold.onnx"))
np.save(os.path.join(out, "x.npy"), np.zeros(12, np.int64))

nodes = [const("s", 0.0, np.float32), const("l", 1e18, np.float32),
         const("d", 1.0, np.float32),
         helper.make_node("Range", ["s", "l", "d"], ["r"], name="r"),
         helper.make_node("Add", ["x", "r"], ["y"])]
graph = helper.make_graph(
    nodes, "range", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]),
          os.path.join(out, "range.onnx"))
