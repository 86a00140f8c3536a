# SPDX-License-Identifier: Apache-2.0
# large-weights.test's model: y = x W with W 24000x24000 float32 (2.3 GB,
# as ONNX external data), x all ones, W all 0.001: y is 24 everywhere.
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out, n = sys.argv[1], 24000
w = numpy_helper.from_array(np.full((n, n), 0.001, np.float32), "w")
graph = helper.make_graph(
    [helper.make_node("MatMul", ["x", "w"], ["y"], name="matmul")], "g",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, n])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, n])], [w])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
onnx.save(model, os.path.join(out, "big.onnx"), save_as_external_data=True,
          all_tensors_to_one_file=True, location="big.bin", size_threshold=0)
np.save(os.path.join(out, "x.npy"), np.ones((1, n), np.float32))
