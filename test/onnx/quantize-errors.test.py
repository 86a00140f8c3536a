# SPDX-License-Identifier: Apache-2.0
# The models and samples of quantize-errors.test: a Conv + Relu of batch 2 that mxc
# --quantize=int8 takes, a Relu alone that has nothing to quantize, and calibration samples
# that fit, that are of another shape, and that are fewer than a batch.
import sys

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper

out = sys.argv[1]
x = h.make_tensor_value_info("x", T.FLOAT, [2, 3, 8, 8])
w = numpy_helper.from_array(np.ones((4, 3, 3, 3), np.float32), "w")
conv = h.make_graph([h.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
                     h.make_node("Relu", ["c"], ["y"])], "conv", [x],
                    [h.make_tensor_value_info("y", T.FLOAT, None)], [w])
onnx.save(h.make_model(conv, opset_imports=[h.make_opsetid("", 13)]), f"{out}/conv.onnx")
relu = h.make_graph([h.make_node("Relu", ["x"], ["y"])], "relu", [x],
                    [h.make_tensor_value_info("y", T.FLOAT, None)])
onnx.save(h.make_model(relu, opset_imports=[h.make_opsetid("", 13)]), f"{out}/relu.onnx")
rng = np.random.default_rng(0)
np.save(f"{out}/samples.npy", rng.standard_normal((4, 3, 8, 8)).astype(np.float32))
np.save(f"{out}/wrong_shape.npy", rng.standard_normal((4, 3, 9, 8)).astype(np.float32))
np.save(f"{out}/one.npy", rng.standard_normal((1, 3, 8, 8)).astype(np.float32))
# Below opset 13 (no per-axis DequantizeLinear) weights and biases are quantized per tensor.
b = numpy_helper.from_array(np.arange(4, dtype=np.float32), "b")
conv11 = h.make_graph([h.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
                       h.make_node("Relu", ["c"], ["y"])], "conv11", [x],
                      [h.make_tensor_value_info("y", T.FLOAT, None)], [w, b])
onnx.save(h.make_model(conv11, opset_imports=[h.make_opsetid("", 11)]), f"{out}/conv11.onnx")
# Weights and biases as torch exports them: a Constant node's value, and a bias shared through
# Identity nodes (the exporter's one copy of equal tensors).
zero = numpy_helper.from_array(np.zeros(4, np.float32), "zero_bias")
w2 = numpy_helper.from_array(np.ones((4, 4, 3, 3), np.float32), "w2v")
shared = h.make_graph([h.make_node("Identity", ["zero_bias"], ["b1"]),
                       h.make_node("Identity", ["zero_bias"], ["b2"]),
                       h.make_node("Constant", [], ["w2"], value=w2),
                       h.make_node("Conv", ["x", "w", "b1"], ["c1"], pads=[1, 1, 1, 1]),
                       h.make_node("Relu", ["c1"], ["r1"]),
                       h.make_node("Conv", ["r1", "w2", "b2"], ["y"], pads=[1, 1, 1, 1])],
                      "shared", [x], [h.make_tensor_value_info("y", T.FLOAT, None)], [w, zero])
onnx.save(h.make_model(shared, opset_imports=[h.make_opsetid("", 13)]), f"{out}/shared.onnx")
