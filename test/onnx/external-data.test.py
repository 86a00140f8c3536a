# SPDX-License-Identifier: Apache-2.0
# external-data.test's models: a MatMul + Add with 64x32 weights, saved with
# the weights inside the model and as external data (weights.bin), and three
# broken copies of the external one.
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
rng = np.random.default_rng(0)
w = numpy_helper.from_array(rng.standard_normal((64, 32)).astype(np.float32), "w")
b = numpy_helper.from_array(rng.standard_normal(32).astype(np.float32), "b")
graph = helper.make_graph(
    [helper.make_node("MatMul", ["x", "w"], ["h"], name="matmul"),
     helper.make_node("Add", ["h", "b"], ["y"], name="add")],
    "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 64])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 32])], [w, b])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
onnx.save(model, os.path.join(out, "inline", "model.onnx"))
onnx.save(model, os.path.join(out, "external", "model.onnx"),
          save_as_external_data=True, all_tensors_to_one_file=True,
          location="weights.bin", size_threshold=0)


def broken(name, key, value):
    """The external model with external_data `key` of tensor w set."""
    m = onnx.load(os.path.join(out, "external", "model.onnx"),
                  load_external_data=False)
    for t in m.graph.initializer:
        if t.name == "w":
            for e in t.external_data:
                if e.key == key:
                    e.value = value
    with open(os.path.join(out, name), "wb") as f:
        f.write(m.SerializeToString())


os.link(os.path.join(out, "external", "weights.bin"),
        os.path.join(out, "weights.bin"))
broken("bad_offset.onnx", "offset", "twelve")
broken("missing.onnx", "location", "nowhere.bin")
broken("short.onnx", "length", "100")
