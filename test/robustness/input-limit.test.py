# SPDX-License-Identifier: Apache-2.0
# input-limit.test's ONNX model: y = (x W1) W2, W1 and W2 64x64 float32
# (16 KiB each) as external data in one file, ext.bin.
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
w1 = numpy_helper.from_array(np.eye(64, dtype=np.float32), "w1")
w2 = numpy_helper.from_array(np.eye(64, dtype=np.float32) * 2, "w2")
graph = helper.make_graph(
    [helper.make_node("MatMul", ["x", "w1"], ["h"], name="mm1"),
     helper.make_node("MatMul", ["h", "w2"], ["y"], name="mm2")], "g",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 64])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 64])], [w1, w2])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
onnx.save(model, os.path.join(out, "ext.onnx"), save_as_external_data=True,
          all_tensors_to_one_file=True, location="ext.bin", size_threshold=0)
