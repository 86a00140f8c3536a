# SPDX-License-Identifier: Apache-2.0
# large-graphs.test's models, written to argv[1]:
#   chain.json        MXNet: 20,000 chained ReLUs of data (1x4)
#   concat1000.onnx   ONNX: a Concat of 1,000 different inputs (each
#                     x * (i + 1), x 1x3), and concat1000_ref.npy, NumPy's
#   concat5000.onnx   ONNX: a Concat of 5,000 inputs (over the limit)
#   x.npy             the input, and chain_ref.npy = relu(x)
import json
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper, save

out = sys.argv[1]
n = 20000
nodes = [{"op": "null", "name": "data", "inputs": []}]
for i in range(n):
    nodes.append({"op": "Activation", "name": "relu%d" % i,
                  "attrs": {"act_type": "relu"}, "inputs": [[i, 0, 0]]})
with open(os.path.join(out, "chain.json"), "w") as f:
    json.dump({"nodes": nodes, "arg_nodes": [0], "heads": [[n, 0, 0]],
               "attrs": {"mxnet_version": ["int", 10600]}}, f)
x4 = np.array([[-1.5, 2.0, -0.25, 4.0]], np.float32)
np.save(os.path.join(out, "x4.npy"), x4)
np.save(os.path.join(out, "chain_ref.npy"), np.maximum(x4, 0))


def value(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def concat_model(k, path):
    scales = [numpy_helper.from_array(np.array([i + 1], np.float32), "s%d" % i)
              for i in range(k)]
    nodes = [helper.make_node("Mul", ["x", "s%d" % i], ["m%d" % i])
             for i in range(k)]
    nodes.append(helper.make_node("Concat", ["m%d" % i for i in range(k)],
                                  ["y"], axis=0))
    graph = helper.make_graph(nodes, "g", [value("x", [1, 3])],
                              [value("y", [k, 3])], scales)
    save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]),
         os.path.join(out, path))


concat_model(1000, "concat1000.onnx")
concat_model(5000, "concat5000.onnx")
x3 = np.array([[1.0, -2.0, 0.5]], np.float32)
np.save(os.path.join(out, "x3.npy"), x3)
np.save(os.path.join(out, "concat1000_ref.npy"),
        np.concatenate([x3 * (i + 1) for i in range(1000)], axis=0))
