# SPDX-License-Identifier: Apache-2.0
# The models of integer-products.test: MatMulInteger and QLinearMatMul over the whole byte
# range (uint8 and int8 operands, values past 127 where signedness matters), with scalar
# and per-column zero points given as initializers or graph inputs, checked exactly
# against NumPy.
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper

M, K, N = 5, 37, 19
ONNX_TYPE = {np.uint8: T.UINT8, np.int8: T.INT8}

# name, A's type, B's type, B's zero point per column, zero points as graph inputs,
# QLinearMatMul (else MatMulInteger)
CASES = [
    ("u8u8", np.uint8, np.uint8, False, False, False),
    ("u8s8_columns", np.uint8, np.int8, True, False, False),
    ("s8s8", np.int8, np.int8, False, False, False),
    ("s8u8_columns", np.int8, np.uint8, True, False, False),
    ("u8s8_inputs", np.uint8, np.int8, False, True, False),
    ("qlinear_u8s8", np.uint8, np.int8, False, False, True),
    ("qlinear_s8u8", np.int8, np.uint8, False, False, True),
]


def data(seed, at, bt, per_column):
    rng = np.random.default_rng(seed)
    info = lambda t: np.iinfo(t)  # noqa: E731
    a = rng.integers(info(at).min, info(at).max + 1, (M, K)).astype(at)
    b = rng.integers(info(bt).min, info(bt).max + 1, (K, N)).astype(bt)
    za = np.array(rng.integers(info(at).min, info(at).max + 1), at)
    zb = rng.integers(info(bt).min, info(bt).max + 1, (N,) if per_column else ()).astype(bt)
    return a, b, za, zb


def make(out):
    for seed, (name, at, bt, per_column, as_inputs, qlinear) in enumerate(CASES):
        a, b, za, zb = data(seed, at, bt, per_column)
        inputs = [h.make_tensor_value_info("a", ONNX_TYPE[at], [M, K])]
        inits = [numpy_helper.from_array(b, "b")]
        zeros = [numpy_helper.from_array(za, "za"), numpy_helper.from_array(zb, "zb")]
        if as_inputs:
            inputs += [h.make_tensor_value_info("za", ONNX_TYPE[at], []),
                       h.make_tensor_value_info("zb", ONNX_TYPE[bt], list(zb.shape))]
            np.save(f"{out}/{name}_za.npy", za)
            np.save(f"{out}/{name}_zb.npy", zb)
        else:
            inits += zeros
        if qlinear:
            inits += [numpy_helper.from_array(np.array(s, np.float32), n) for n, s in
                      (("sa", 0.05), ("sb", 0.02), ("sy", 0.9))]
            inits.append(numpy_helper.from_array(np.array(3, np.uint8), "zy"))
            node = h.make_node("QLinearMatMul", ["a", "sa", "za", "b", "sb", "zb", "sy", "zy"],
                               ["y"])
            out_type = T.UINT8
        else:
            node = h.make_node("MatMulInteger", ["a", "b", "za", "zb"], ["y"])
            out_type = T.INT32
        graph = h.make_graph([node], name, inputs, [h.make_tensor_value_info("y", out_type, [M, N])],
                             inits)
        onnx.save(h.make_model(graph, opset_imports=[h.make_opsetid("", 13)]),
                  f"{out}/{name}.onnx")
        np.save(f"{out}/{name}_a.npy", a)


def check(out):
    for seed, (name, at, bt, per_column, as_inputs, qlinear) in enumerate(CASES):
        a, b, za, zb = data(seed, at, bt, per_column)
        acc = (a.astype(np.int64) - za) @ (b.astype(np.int64) - zb.astype(np.int64))
        if qlinear:
            scale = np.float32(np.float32(0.05) * np.float32(0.02)) / np.float32(0.9)
            want = np.clip(np.rint(acc * np.float64(scale)) + 3, 0, 255).astype(np.uint8)
        else:
            want = acc.astype(np.int32)
        got = np.load(f"{out}/{name}/y.npy")
        assert got.dtype == want.dtype and np.array_equal(got, want), \
            f"{name}: {np.count_nonzero(got != want)} of {want.size} differ"
    print(f"{len(CASES)} integer products match NumPy exactly")


if __name__ == "__main__":
    {"make": make, "check": check}[sys.argv[1]](sys.argv[2])
