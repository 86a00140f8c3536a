# SPDX-License-Identifier: Apache-2.0
# Writes small ONNX models with a dynamic batch dimension (for mxc/dynamic-batch.test) to
# DIR, with NumPy inputs and references:
#   two.onnx    x, y: [N, 4] -> out = Relu(x + y) @ W (4x3) + b, [N, 3]; and mean_w: the
#               mean of W, [1] (no batch: every slice of rows writes the same value).
#               Inputs x<N>.npy / y<N>.npy and references out<N>.npy for N in 3, 5, 11, 0.
#   mixing.onnx x: [N, 4] -> ReduceSum over axis 0 (rows meet), [1, 4].
#   seq.onnx    x: [2, S] -> Relu, the dynamic dimension on axis 1.
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as T, helper as h, numpy_helper

out = sys.argv[1]
rng = np.random.default_rng(5)
w = rng.standard_normal((4, 3)).astype(np.float32)
b = rng.standard_normal(3).astype(np.float32)


def save(name, nodes, inputs, outputs, inits=()):
    model = h.make_model(h.make_graph(nodes, name, inputs, outputs, list(inits)),
                         opset_imports=[h.make_opsetid("", 13)])
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(out, name + ".onnx"))


save("two",
     [h.make_node("Add", ["x", "y"], ["s"]), h.make_node("Relu", ["s"], ["r"]),
      h.make_node("MatMul", ["r", "w"], ["m"]), h.make_node("Add", ["m", "b"], ["out"]),
      h.make_node("ReduceMean", ["w"], ["mean_w"], keepdims=0, axes=[1]),
      h.make_node("ReduceMean", ["mean_w"], ["mean_w1"], keepdims=1)],
     [h.make_tensor_value_info("x", T.FLOAT, ["N", 4]),
      h.make_tensor_value_info("y", T.FLOAT, ["N", 4])],
     [h.make_tensor_value_info("out", T.FLOAT, ["N", 3]),
      h.make_tensor_value_info("mean_w1", T.FLOAT, [1])],
     [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")])
for n in (3, 5, 11, 0):
    x = rng.standard_normal((n, 4)).astype(np.float32)
    y = rng.standard_normal((n, 4)).astype(np.float32)
    np.save(os.path.join(out, f"x{n}.npy"), x)
    np.save(os.path.join(out, f"y{n}.npy"), y)
    np.save(os.path.join(out, f"out{n}.npy"), (np.maximum(x + y, 0) @ w + b).astype(np.float32))
np.save(os.path.join(out, "mean_w.npy"), np.array([w.mean()], np.float32))

save("mixing", [h.make_node("ReduceSum", ["x", "axes"], ["out"], keepdims=1)],
     [h.make_tensor_value_info("x", T.FLOAT, ["N", 4])],
     [h.make_tensor_value_info("out", T.FLOAT, [1, 4])],
     [numpy_helper.from_array(np.array([0], np.int64), "axes")])

save("seq", [h.make_node("Relu", ["x"], ["out"])],
     [h.make_tensor_value_info("x", T.FLOAT, [2, "S"])],
     [h.make_tensor_value_info("out", T.FLOAT, [2, "S"])])
