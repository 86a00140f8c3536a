# SPDX-License-Identifier: Apache-2.0
# Writes ONNX models with a sequence and an optional input (for
# input-sequence.test) to DIR: seq.onnx (y = Identity(x), x a sequence of
# float tensors of unknown shape), opt.onnx (the same on an optional
# sequence), at.onnx (y = SequenceAt(x, p), p an int64 input) with p = 5 as
# TensorProto p5.pb, and two element inputs a.npy (2x3) and b.npy (4).
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

out = sys.argv[1]
seq = helper.make_sequence_type_proto(helper.make_tensor_type_proto(TensorProto.FLOAT, None))
opt = helper.make_optional_type_proto(seq)
for name, type_proto in (("seq", seq), ("opt", opt)):
    graph = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["y"])], name,
        [helper.make_value_info("x", type_proto)], [helper.make_value_info("y", type_proto)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 16)])
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(out, name + ".onnx"))
graph = helper.make_graph(
    [helper.make_node("SequenceAt", ["x", "p"], ["y"])], "at",
    [helper.make_value_info("x", seq), helper.make_tensor_value_info("p", TensorProto.INT64, [])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [None])])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 16)])
onnx.checker.check_model(model)
onnx.save(model, os.path.join(out, "at.onnx"))
with open(os.path.join(out, "p5.pb"), "wb") as f:
    f.write(helper.make_tensor("p", TensorProto.INT64, [], [5]).SerializeToString())
with open(os.path.join(out, "p1.pb"), "wb") as f:
    f.write(helper.make_tensor("p", TensorProto.INT64, [], [-1]).SerializeToString())
# loop.onnx: y = Loop(M, , v = x) with body v + 1 and a scan output of v:
# unrolled when M is bound (m3.pb holds 3).
one = helper.make_tensor("one", TensorProto.FLOAT, [], [1.0])
body = helper.make_graph(
    [helper.make_node("Identity", ["cond_in"], ["cond_out"]),
     helper.make_node("Add", ["v_in", "one"], ["v_out"]),
     helper.make_node("Identity", ["v_in"], ["scan"])], "body",
    [helper.make_tensor_value_info("i", TensorProto.INT64, []),
     helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
     helper.make_tensor_value_info("v_in", TensorProto.FLOAT, [2])],
    [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
     helper.make_tensor_value_info("v_out", TensorProto.FLOAT, [2]),
     helper.make_tensor_value_info("scan", TensorProto.FLOAT, [2])])
graph = helper.make_graph(
    [helper.make_node("Constant", [], ["one"], value=one),
     helper.make_node("Loop", ["M", "", "x"], ["y", "scans"], body=body)], "loop",
    [helper.make_tensor_value_info("M", TensorProto.INT64, []),
     helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2]),
     helper.make_tensor_value_info("scans", TensorProto.FLOAT, [None, 2])])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 16)])
onnx.checker.check_model(model)
onnx.save(model, os.path.join(out, "loop.onnx"))
with open(os.path.join(out, "m3.pb"), "wb") as f:
    f.write(helper.make_tensor("M", TensorProto.INT64, [], [3]).SerializeToString())
np.save(os.path.join(out, "x.npy"), np.array([0.5, -2], np.float32))
np.save(os.path.join(out, "a.npy"), np.arange(6, dtype=np.float32).reshape(2, 3))
np.save(os.path.join(out, "b.npy"), np.array([-1, 0.5, 2, 7], np.float32))
