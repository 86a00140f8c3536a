# SPDX-License-Identifier: Apache-2.0
# bf16-precision.test's model and check: a 1x1 Conv (64 -> 32, bias) + Relu, Flatten and a
# Gemm (2048 -> 10) compiled with --precision=bf16 must equal NumPy's products of the
# operands rounded to bfloat16 (nearest even) summed in float64, to float32 accuracy, and
# be much further from the float32 products (the rounding happened).
import sys

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh


def bf16(v):
    """float32 values rounded to the nearest bfloat16 (ties to even), as float32."""
    bits = np.asarray(v, np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return bits.astype(np.uint32).view(np.float32)


def data():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 64, 8, 8)).astype(np.float32)
    w = (rng.standard_normal((32, 64, 1, 1)) * 0.2).astype(np.float32)
    b = rng.standard_normal(32).astype(np.float32)
    g = (rng.standard_normal((10, 2048)) * 0.05).astype(np.float32)
    return x, w, b, g


def forward(x, w, b, g, round_operands):
    r = bf16 if round_operands else (lambda v: v)
    y = np.einsum("nchw,fc->nfhw", r(x).astype(np.float64),
                  r(w[:, :, 0, 0]).astype(np.float64)) + b.reshape(1, -1, 1, 1)
    y = np.maximum(y, 0).astype(np.float32).reshape(4, -1)
    return (r(y).astype(np.float64) @ r(g).astype(np.float64).T).astype(np.float32)


def make(out):
    x, w, b, g = data()
    nodes = [h.make_node("Conv", ["x", "w", "b"], ["c"]), h.make_node("Relu", ["c"], ["r"]),
             h.make_node("Flatten", ["r"], ["f"]),
             h.make_node("Gemm", ["f", "g"], ["y"], transB=1)]
    graph = h.make_graph(nodes, "bf16", [h.make_tensor_value_info("x", T.FLOAT, x.shape)],
                         [h.make_tensor_value_info("y", T.FLOAT, None)],
                         [nh.from_array(w, "w"), nh.from_array(b, "b"), nh.from_array(g, "g")])
    onnx.save(h.make_model(graph, opset_imports=[h.make_opsetid("", 13)]), f"{out}/net.onnx")
    np.save(f"{out}/x.npy", x)


def check(out):
    got = np.load(f"{out}/y/y.npy")
    rounded, exact = forward(*data(), True), forward(*data(), False)
    scale = np.abs(exact).max()
    near, far = np.abs(got - rounded).max() / scale, np.abs(got - exact).max() / scale
    print(f"bf16 library: {near:.1e} from bfloat16 products, {far:.1e} from float32 ones")
    assert near < 1e-5, f"{near} from NumPy's bfloat16 products"
    assert far > 1e-4, f"only {far} from float32: were the operands rounded?"
    print("bf16 library: bfloat16 products")


if __name__ == "__main__":
    {"make": make, "check": check}[sys.argv[1]](sys.argv[2])
