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

# rowwise.onnx: x [N, 2, 6] through ops that keep rows apart, against NumPy:
# Transpose (0, 2, 1), Softmax over the last axis, Reshape to (N, 12) from a Shape-free
# constant (0 copies N), Concat with itself on axis 1, Slice of axis 1, Gather on axis 1,
# ReduceMean over axis 1 (keepdims), Mul by a broadcast constant row.
x = rng.standard_normal((7, 2, 6)).astype(np.float32)
scale = rng.standard_normal((1, 1)).astype(np.float32)


def rowwise_ref(x):
    t = np.transpose(x, (0, 2, 1))
    e = np.exp(t - t.max(-1, keepdims=True))
    s = (e / e.sum(-1, keepdims=True)).reshape(len(x), 12)
    c = np.concatenate([s, s], 1)[:, 2:20]
    g = c[:, [0, 5, 17]]
    return (g.mean(1, keepdims=True) * scale).astype(np.float32), g


save("rowwise",
     [h.make_node("Transpose", ["x"], ["t"], perm=[0, 2, 1]),
      h.make_node("Softmax", ["t"], ["s"], axis=-1),
      h.make_node("Reshape", ["s", "shape"], ["r"]),
      h.make_node("Concat", ["r", "r"], ["c"], axis=1),
      h.make_node("Slice", ["c", "starts", "ends", "axes"], ["sl"]),
      h.make_node("Gather", ["sl", "idx"], ["g"], axis=1),
      h.make_node("ReduceMean", ["g"], ["m"], axes=[1], keepdims=1),
      h.make_node("Mul", ["m", "scale"], ["out"])],
     [h.make_tensor_value_info("x", T.FLOAT, ["N", 2, 6])],
     [h.make_tensor_value_info("out", T.FLOAT, ["N", 1]),
      h.make_tensor_value_info("g", T.FLOAT, ["N", 3])],
     [numpy_helper.from_array(np.array([0, 12], np.int64), "shape"),
      numpy_helper.from_array(np.array([2], np.int64), "starts"),
      numpy_helper.from_array(np.array([20], np.int64), "ends"),
      numpy_helper.from_array(np.array([1], np.int64), "axes"),
      numpy_helper.from_array(np.array([0, 5, 17], np.int64), "idx"),
      numpy_helper.from_array(scale, "scale")])
np.save(os.path.join(out, "rowwise_x.npy"), x)
out_ref, g_ref = rowwise_ref(x)
np.save(os.path.join(out, "rowwise_out.npy"), out_ref)
np.save(os.path.join(out, "rowwise_g.npy"), g_ref)

# Graphs whose rows meet, one op each: mix_<name>.onnx, x [N, 4] -> y.
for name, nodes, inits, y_shape in [
        ("transpose", [h.make_node("Transpose", ["x"], ["y"], perm=[1, 0])], [], [4, "N"]),
        ("softmax0", [h.make_node("Softmax", ["x"], ["y"], axis=0)], [], ["N", 4]),
        ("flatten_all", [h.make_node("Reshape", ["x", "shape"], ["y"])],
         [numpy_helper.from_array(np.array([-1], np.int64), "shape")], ["M"]),
        ("split_rows", [h.make_node("Reshape", ["x", "shape"], ["y"])],
         [numpy_helper.from_array(np.array([2, -1], np.int64), "shape")], [2, "M"]),
        ("concat0", [h.make_node("Concat", ["x", "x"], ["y"], axis=0)], [], ["M", 4]),
        ("gather_rows", [h.make_node("Gather", ["x", "idx"], ["y"], axis=0)],
         [numpy_helper.from_array(np.array([0], np.int64), "idx")], [1, 4]),
        ("cumsum0", [h.make_node("CumSum", ["x", "axis"], ["y"])],
         [numpy_helper.from_array(np.array(0, np.int64), "axis")], ["N", 4])]:
    save("mix_" + name, nodes, [h.make_tensor_value_info("x", T.FLOAT, ["N", 4])],
         [h.make_tensor_value_info("y", T.FLOAT, y_shape)], inits)

# pair.onnx: x, m [batch, seq] (dim_params shared) -> out = ReduceSum(x * m, axis 1), [batch, 1]:
# --input x=... shapes m too.
save("pair", [h.make_node("Mul", ["x", "m"], ["p"]),
              h.make_node("ReduceSum", ["p", "axes"], ["out"], keepdims=1)],
     [h.make_tensor_value_info("x", T.FLOAT, ["batch", "seq"]),
      h.make_tensor_value_info("m", T.FLOAT, ["batch", "seq"])],
     [h.make_tensor_value_info("out", T.FLOAT, ["batch", 1])],
     [numpy_helper.from_array(np.array([1], np.int64), "axes")])
px = rng.standard_normal((3, 5)).astype(np.float32)
pm = (rng.random((3, 5)) > 0.5).astype(np.float32)
np.save(os.path.join(out, "pair_x.npy"), px)
np.save(os.path.join(out, "pair_m.npy"), pm)
np.save(os.path.join(out, "pair_out.npy"), (px * pm).sum(1, keepdims=True).astype(np.float32))
