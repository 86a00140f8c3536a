# SPDX-License-Identifier: Apache-2.0
# Makes the fixtures of test/models/dynamic_seq_ops.test: a graph with dynamic batch and
# sequence axes (x: [B, S, 8]) through the operators a transformer's attention is made
# of, with its shapes computed as torch.onnx.export writes them (Shape -> Gather ->
# Unsqueeze -> Concat -> Reshape): a matrix product by a weight, a reshape to heads
# ([B, S, 2, 3], the batch and sequence copied from Shape), a transpose to [B, 2, S, 3], a
# softmax over the sequence, a mean over the last axis subtracted, and a reshape to
# [B, -1]; and NumPy's outputs at several (B, S).
import argparse
import os

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh


def reference(x, w):
    m = x @ w
    b, s = x.shape[:2]
    t = m.reshape(b, s, 2, 3).transpose(0, 2, 1, 3)
    e = np.exp(t - t.max(2, keepdims=True))
    sm = e / e.sum(2, keepdims=True)
    y = sm - sm.mean(3, keepdims=True)
    return y.reshape(b, -1)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out-dir", required=True)
    p.add_argument("--sizes", default="2x3,1x5,3x1")
    a = p.parse_args()
    os.makedirs(a.out_dir, exist_ok=True)
    rng = np.random.default_rng(0)
    w = rng.standard_normal((8, 6)).astype(np.float32)
    c = lambda name, v: h.make_node("Constant", [], [name], value=nh.from_array(
        np.array(v, dtype=np.int64), name))
    nodes = [
        h.make_node("MatMul", ["x", "w"], ["m"]),
        h.make_node("Shape", ["m"], ["ms"]),
        c("i0", 0), c("i1", 1), c("ax0", [0]), c("heads", [2, 3]), c("rest", [-1]),
        h.make_node("Gather", ["ms", "i0"], ["b"], axis=0),
        h.make_node("Gather", ["ms", "i1"], ["s"], axis=0),
        h.make_node("Unsqueeze", ["b", "ax0"], ["b1"]),
        h.make_node("Unsqueeze", ["s", "ax0"], ["s1"]),
        h.make_node("Concat", ["b1", "s1", "heads"], ["shape4"], axis=0),
        h.make_node("Reshape", ["m", "shape4"], ["r"]),
        h.make_node("Transpose", ["r"], ["t"], perm=[0, 2, 1, 3]),
        h.make_node("Softmax", ["t"], ["sm"], axis=2),
        h.make_node("ReduceMean", ["sm"], ["mean"], axes=[3], keepdims=1),
        h.make_node("Sub", ["sm", "mean"], ["d"]),
        h.make_node("Shape", ["d"], ["ds"]),
        h.make_node("Gather", ["ds", "i0"], ["b2"], axis=0),
        h.make_node("Unsqueeze", ["b2", "ax0"], ["b3"]),
        h.make_node("Concat", ["b3", "rest"], ["shape2"], axis=0),
        h.make_node("Reshape", ["d", "shape2"], ["y"]),
    ]
    g = h.make_graph(nodes, "attention_ops",
                     [h.make_tensor_value_info("x", T.FLOAT, ["B", "S", 8])],
                     [h.make_tensor_value_info("y", T.FLOAT, ["B", "F"])],
                     [nh.from_array(w, "w")])
    onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 13)]),
              os.path.join(a.out_dir, "seq_ops.onnx"))
    for size in a.sizes.split(","):
        b, s = map(int, size.split("x"))
        x = rng.standard_normal((b, s, 8)).astype(np.float32)
        np.save(os.path.join(a.out_dir, f"x_{size}.npy"), x)
        np.save(os.path.join(a.out_dir, f"y_{size}.npy"), reference(x, w))


if __name__ == "__main__":
    main()
