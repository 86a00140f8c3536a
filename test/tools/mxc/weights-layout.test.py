# SPDX-License-Identifier: Apache-2.0
# weights-layout.test's larger model: y = x W + b with W 2600x2100 random
# float32 (21 MB, more than one 8 MiB round of DirectFileStream, so that the
# library's and the archive's weights go out by direct I/O) and b of 2100
# (the next parameter starts off a page boundary); y for x all ones is saved
# by NumPy as the reference.
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
rng = np.random.default_rng(7)
w = rng.standard_normal((2600, 2100)).astype(np.float32)
b = rng.standard_normal((1, 2100)).astype(np.float32)
graph = helper.make_graph(
    [helper.make_node("MatMul", ["x", "w"], ["xw"], name="matmul"),
     helper.make_node("Add", ["xw", "b"], ["y"], name="bias")], "g",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2600])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2100])],
    [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
onnx.save(model, os.path.join(out, "wide.onnx"))
x = np.ones((1, 2600), np.float32)
np.save(os.path.join(out, "x.npy"), x)
# float64 sums: 2600 float32 products round to ~1e-4 in any order.
np.save(os.path.join(out, "y.npy"),
        (x.astype(np.float64) @ w + b).astype(np.float32))
