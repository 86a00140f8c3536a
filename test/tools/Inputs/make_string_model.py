# SPDX-License-Identifier: Apache-2.0
# Writes a small ONNX model with string tensors (for strings.test):
#   s: string[3] -> f = Cast(s, float), t = Identity(s), u = Cast(f, string)
# and its input s.npy, to DIR.
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

out = sys.argv[1]
graph = helper.make_graph(
    [helper.make_node("Cast", ["s"], ["f"], to=TensorProto.FLOAT),
     helper.make_node("Identity", ["s"], ["t"]),
     helper.make_node("Cast", ["f"], ["u"], to=TensorProto.STRING)],
    "strings",
    [helper.make_tensor_value_info("s", TensorProto.STRING, [3])],
    [helper.make_tensor_value_info("f", TensorProto.FLOAT, [3]),
     helper.make_tensor_value_info("t", TensorProto.STRING, [3]),
     helper.make_tensor_value_info("u", TensorProto.STRING, [3])])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
onnx.checker.check_model(model)
onnx.save(model, os.path.join(out, "strings.onnx"))
np.save(os.path.join(out, "s.npy"), np.array(["1.5", "-INF", " 2e1 "]))
np.save(os.path.join(out, "bad.npy"), np.array(["1", "x1", "2"]))
