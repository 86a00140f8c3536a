# SPDX-License-Identifier: Apache-2.0
# quantize-inputs.test's model, samples and check: a model of two inputs, float features x
# (batch 2 x 16) and int64 token ids (batch 2), y = x W1 + Embedding(ids) W2, quantized by
# mxc --quantize=int8 with samples of each input (--calibrate NAME=FILE.npy).
#   make DIR   the model, 32 samples of each input, 30 ids (too few), one batch to run
#   check DIR  the int8 library's y against NumPy's float one: within 5% of its norm, and
#              not equal to it (quantized at all)
import sys

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh

rng = np.random.default_rng(7)
W1 = rng.standard_normal((16, 8)).astype(np.float32) * 0.3
W2 = rng.standard_normal((16, 8)).astype(np.float32) * 0.3
TABLE = rng.standard_normal((10, 16)).astype(np.float32)


def forward(x, ids):
    return x @ W1 + TABLE[ids] @ W2


if sys.argv[1] == "make":
    out = sys.argv[2]
    nodes = [h.make_node("Gather", ["table", "ids"], ["e"]),
             h.make_node("MatMul", ["x", "w1"], ["a"]),
             h.make_node("MatMul", ["e", "w2"], ["b"]),
             h.make_node("Add", ["a", "b"], ["y"])]
    g = h.make_graph(nodes, "two", [h.make_tensor_value_info("x", T.FLOAT, [2, 16]),
                                    h.make_tensor_value_info("ids", T.INT64, [2])],
                     [h.make_tensor_value_info("y", T.FLOAT, None)],
                     [nh.from_array(W1, "w1"), nh.from_array(W2, "w2"),
                      nh.from_array(TABLE, "table")])
    onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 13)]), f"{out}/two.onnx")
    np.save(f"{out}/x.npy", rng.standard_normal((32, 16)).astype(np.float32))
    np.save(f"{out}/ids.npy", rng.integers(0, 10, 32).astype(np.int64))
    np.save(f"{out}/ids_few.npy", rng.integers(0, 10, 30).astype(np.int64))
    np.save(f"{out}/x_run.npy", rng.standard_normal((2, 16)).astype(np.float32))
    np.save(f"{out}/ids_run.npy", np.array([3, 8], np.int64))
else:
    out = sys.argv[2]
    got = np.load(f"{out}/y/y.npy")
    want = forward(np.load(f"{out}/x_run.npy"), np.load(f"{out}/ids_run.npy"))
    rel = float(np.linalg.norm(got - want) / np.linalg.norm(want))
    print(f"int8 vs float: relative error {rel:.4f}")
    if not 1e-5 < rel <= 0.05:
        sys.exit("int8 output out of bounds")
