# SPDX-License-Identifier: Apache-2.0
# The models of quantization-errors.test: quantization operators given what mxc refuses,
# one model each.
import sys

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper

out = sys.argv[1]


def save(name, node, inputs, output, inits=()):
    graph = h.make_graph([node], name, inputs, [output],
                         [numpy_helper.from_array(a, n) for n, a in inits])
    onnx.save(h.make_model(graph, opset_imports=[h.make_opsetid("", 13)]),
              "%s/%s.onnx" % (out, name))


x = h.make_tensor_value_info("x", T.FLOAT, [2, 4])
q = h.make_tensor_value_info("q", T.UINT8, [2, 4])
scale = ("s", np.array(0.5, np.float32))
# Blocked quantization (opset 21's block_size).
save("blocked", h.make_node("QuantizeLinear", ["x", "s"], ["y"], name="quant/blocked",
                            block_size=2),
     [x], h.make_tensor_value_info("y", T.UINT8, [2, 4]), [scale])
# A per-axis scale whose length is not the axis' extent.
save("scale_length", h.make_node("QuantizeLinear", ["x", "s"], ["y"], name="quant/axis",
                                 axis=1),
     [x], h.make_tensor_value_info("y", T.UINT8, [2, 4]),
     [("s", np.array([0.5, 0.25, 1.0], np.float32))])
# A zero point of another type than the quantized input.
save("zero_type", h.make_node("DequantizeLinear", ["q", "s", "z"], ["y"], name="dequant"),
     [q], h.make_tensor_value_info("y", T.FLOAT, [2, 4]),
     [scale, ("z", np.array(3, np.int8))])
# An integer product of float operands.
save("float_operand", h.make_node("MatMulInteger", ["x", "b"], ["y"], name="mmi"),
     [x], h.make_tensor_value_info("y", T.INT32, [2, 3]),
     [("b", np.ones((4, 3), np.int8))])


def save_ms(name, node, inputs, output, inits=()):
    """A model of ONNX Runtime's com.microsoft operators."""
    graph = h.make_graph([node], name, inputs, [output],
                         [numpy_helper.from_array(a, n) for n, a in inits])
    onnx.save(h.make_model(graph, opset_imports=[h.make_opsetid("", 13),
                                                 h.make_opsetid("com.microsoft", 1)]),
              "%s/%s.onnx" % (out, name))


# QGemm without y_scale: a float output.
save_ms("qgemm_float", h.make_node("QGemm", ["q", "s", "z", "b", "s", "zb"], ["y"],
                                   name="qgemm", domain="com.microsoft"),
        [q], h.make_tensor_value_info("y", T.FLOAT, [2, 3]),
        [scale, ("z", np.array(3, np.uint8)), ("b", np.ones((4, 3), np.int8)),
         ("zb", np.array(0, np.int8))])
# QLinearAdd of a uint8 and an int8 tensor.
save_ms("qadd_types", h.make_node("QLinearAdd", ["q", "s", "", "b", "s", "", "s"], ["y"],
                                  name="qadd", domain="com.microsoft"),
        [q], h.make_tensor_value_info("y", T.UINT8, [2, 4]),
        [scale, ("b", np.ones((2, 4), np.int8))])
