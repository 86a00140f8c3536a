# SPDX-License-Identifier: Apache-2.0
# The models of qdq-fusion.test: QDQ-quantized Conv, MatMul and Gemm (int8 weights per
# channel or per tensor, int32 bias, Relu, uint8 and int8 activations, a residual Add), which
# mxc runs as QLinearConv / QLinearMatMul / QGemm / QLinearAdd. Each output is checked
# exactly against NumPy doing ONNX Runtime's integer arithmetic (the product in integers
# plus the int32 bias, times x_scale * w_scale / y_scale in float32, rounded half to even,
# plus the zero point, saturated; a quantized Add as its x86 kernel computes it, fused
# multiply-adds of the operands by the scale ratios in float32), and against ONNX Runtime
# itself where bench/.peers holds it (npm onnxruntime-node).
import os
import shutil
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh

HERE = os.path.dirname(os.path.abspath(__file__))
ORT_MODULES = os.path.join(HERE, "..", "..", "bench", ".peers", "node_modules")

# name, operator, activation type, weight scales per channel, bias, Relu, sizes; a "+"
# after the operator adds the layer's quantized input back (a residual: Conv's output
# quantized, then DequantizeLinear(y) + DequantizeLinear(x) [-> Relu] -> QuantizeLinear); a
# "^" max-pools the quantized output (DequantizeLinear -> MaxPool 3x3 / 2, padding 1 ->
# QuantizeLinear of the same scale and zero point, which pools the bytes themselves); a
# "~" flattens it the same way (DequantizeLinear -> Flatten -> QuantizeLinear: the bytes
# flattened, as torch's ResNet exports put the classifier's input); a "|" concatenates it
# with itself along the channels (two DequantizeLinears of it -> Concat -> QuantizeLinear).
# Each is a form ONNX Runtime runs on integers too (its QDQ fusion): outputs of the
# activations' type, and a Relu before a QuantizeLinear whose zero point is the type's
# minimum (which makes the Relu a no-op that ORT drops). Elsewhere ORT computes in float,
# whose sums land on the other side of a rounding boundary now and then; its 1.30 does so
# for these Gemms too (its QGemm fusion leaves them), so ORT's agreement on them is one of
# these data, not of the arithmetic.
CASES = [
    ("conv_u8_channels_bias_relu", "Conv", np.uint8, True, True, True, (1, 256, 14, 14, 128)),
    ("conv_s8_tensor", "Conv", np.int8, False, False, False, (2, 16, 9, 9, 24)),
    ("conv_u8_channels_bias", "Conv", np.uint8, True, True, False, (1, 64, 10, 10, 32)),
    ("matmul_u8_columns_relu", "MatMul", np.uint8, True, False, True, (33, 300, 70)),
    ("matmul_s8_tensor", "MatMul", np.int8, False, False, False, (7, 129, 40)),
    ("gemm_u8_channels_bias_relu", "Gemm", np.uint8, True, True, True, (9, 200, 50)),
    ("gemm_u8_tensor", "Gemm", np.uint8, False, False, False, (4, 64, 33)),
    ("gemm_u8_channels_bias", "Gemm", np.uint8, True, True, False, (16, 512, 10)),
    ("conv_u8_residual_relu", "Conv+", np.uint8, True, True, True, (1, 32, 12, 12, 32)),
    ("conv_u8_residual", "Conv+", np.uint8, True, True, False, (2, 24, 7, 7, 24)),
    ("conv_u8_maxpool", "Conv^", np.uint8, True, True, True, (1, 32, 12, 12, 32)),
    ("conv_s8_maxpool", "Conv^", np.int8, False, False, False, (2, 16, 9, 9, 24)),
    ("conv_u8_flatten", "Conv~", np.uint8, True, True, True, (2, 16, 6, 6, 8)),
    ("conv_s8_concat", "Conv|", np.int8, True, True, False, (1, 8, 5, 5, 12)),
]


def quantize(v, scale, zero, t):
    info = np.iinfo(t)
    return np.clip(np.rint(v / scale) + zero, info.min, info.max).astype(t)


def case_data(seed, op, at, per_channel, sizes, relu):
    rng = np.random.default_rng(seed)
    if op == "Conv":
        n, c, hh, ww, f = sizes
        x = rng.standard_normal((n, c, hh, ww)).astype(np.float32)
        wf = (rng.standard_normal((f, c, 3, 3)) * 0.2).astype(np.float32)
        per = np.abs(wf).reshape(f, -1).max(1)
    elif op == "Gemm":  # B given transposed (transB = 1), as torch exports a Linear
        m, k, f = sizes
        x = rng.standard_normal((m, k)).astype(np.float32)
        wf = (rng.standard_normal((f, k)) * 0.2).astype(np.float32)
        per = np.abs(wf).max(1)
    else:
        m, k, f = sizes
        x = rng.standard_normal((m, k)).astype(np.float32)
        wf = (rng.standard_normal((k, f)) * 0.2).astype(np.float32)
        per = np.abs(wf).max(0)
    sw = (per / 127).astype(np.float32) if per_channel else np.float32(per.max() / 127)
    shape = {"Conv": (-1, 1, 1, 1), "Gemm": (-1, 1)}.get(op, (1, -1))
    wq = np.clip(np.rint(wf / (np.reshape(sw, shape) if per_channel else sw)), -127,
                 127).astype(np.int8)
    sx = np.float32(np.abs(x).max() / 100)
    zx = at(128 if at == np.uint8 else 3)
    if op == "Gemm":
        zx = at(120 if at == np.uint8 else -5)
    bias = rng.standard_normal(f).astype(np.float32)
    sb = (sx * sw).astype(np.float32) * np.ones(f, np.float32)
    bq = np.rint(bias / sb).astype(np.int32)
    # The output's zero point: the type's minimum under a Relu.
    sy = np.float32(0.05)
    zy = at(np.iinfo(at).min if relu else 100 if at == np.uint8 else -20)
    return x, wq, sw, sx, zx, bq, sb, sy, zy


def sum_quantization(at, relu):
    """The residual sum's output scale and zero point (the type's minimum under a Relu)."""
    return np.float32(0.07), at(np.iinfo(at).min if relu else 90)


def make(out):
    for seed, (name, op, at, per_channel, with_bias, relu, sizes) in enumerate(CASES):
        residual, pooled, flattened = op.endswith("+"), op.endswith("^"), op.endswith("~")
        concatenated = op.endswith("|")
        op = op.rstrip("+^~|")
        relu_on_sum = residual and relu
        relu = relu and not residual
        x, wq, sw, sx, zx, bq, sb, sy, zy = case_data(seed, op, at, per_channel, sizes, relu)
        inits = [nh.from_array(np.array(sx), "sx"), nh.from_array(np.array(zx), "zx"),
                 nh.from_array(wq, "wq"), nh.from_array(np.array(sw), "sw"),
                 nh.from_array(np.array(sy), "sy"), nh.from_array(np.array(zy), "zy")]
        axis = 1 if op == "MatMul" else 0
        nodes = [h.make_node("QuantizeLinear", ["x", "sx", "zx"], ["xq"]),
                 h.make_node("DequantizeLinear", ["xq", "sx", "zx"], ["xd"]),
                 h.make_node("DequantizeLinear", ["wq", "sw"], ["wd"], axis=axis)]
        ins = ["xd", "wd"]
        if with_bias:
            inits += [nh.from_array(bq, "bq"), nh.from_array(sb, "sb")]
            nodes.append(h.make_node("DequantizeLinear", ["bq", "sb"], ["bd"], axis=0))
            ins.append("bd")
        attrs = {"Conv": {"pads": [1, 1, 1, 1]}, "Gemm": {"transB": 1, "beta": 1.0}}.get(op, {})
        nodes.append(h.make_node(op, ins, ["y"], name="layer", **attrs))
        y = "y"
        if relu:
            nodes.append(h.make_node("Relu", ["y"], ["r"]))
            y = "r"
        nodes.append(h.make_node("QuantizeLinear", [y, "sy", "zy"], ["yq"]))
        if residual:
            ss, zs = sum_quantization(at, relu_on_sum)
            inits += [nh.from_array(np.array(ss), "ss"), nh.from_array(np.array(zs), "zs")]
            nodes += [h.make_node("DequantizeLinear", ["yq", "sy", "zy"], ["yd"]),
                      h.make_node("Add", ["yd", "xd"], ["sum"], name="residual")]
            s = "sum"
            if relu_on_sum:
                nodes.append(h.make_node("Relu", ["sum"], ["sr"]))
                s = "sr"
            nodes += [h.make_node("QuantizeLinear", [s, "ss", "zs"], ["sq"]),
                      h.make_node("DequantizeLinear", ["sq", "ss", "zs"], ["out"])]
        elif concatenated:
            nodes += [h.make_node("DequantizeLinear", ["yq", "sy", "zy"], ["yd"]),
                      h.make_node("DequantizeLinear", ["yq", "sy", "zy"], ["yd2"]),
                      h.make_node("Concat", ["yd", "yd2"], ["cat"], axis=1),
                      h.make_node("QuantizeLinear", ["cat", "sy", "zy"], ["cq"]),
                      h.make_node("DequantizeLinear", ["cq", "sy", "zy"], ["out"])]
        elif flattened:
            nodes += [h.make_node("DequantizeLinear", ["yq", "sy", "zy"], ["yd"]),
                      h.make_node("Flatten", ["yd"], ["f"]),
                      h.make_node("QuantizeLinear", ["f", "sy", "zy"], ["fq"]),
                      h.make_node("DequantizeLinear", ["fq", "sy", "zy"], ["out"])]
        elif pooled:
            nodes += [h.make_node("DequantizeLinear", ["yq", "sy", "zy"], ["yd"]),
                      h.make_node("MaxPool", ["yd"], ["p"], kernel_shape=[3, 3],
                                  strides=[2, 2], pads=[1, 1, 1, 1]),
                      h.make_node("QuantizeLinear", ["p", "sy", "zy"], ["pq"]),
                      h.make_node("DequantizeLinear", ["pq", "sy", "zy"], ["out"])]
        else:
            nodes.append(h.make_node("DequantizeLinear", ["yq", "sy", "zy"], ["out"]))
        g = h.make_graph(nodes, name, [h.make_tensor_value_info("x", T.FLOAT, x.shape)],
                         [h.make_tensor_value_info("out", T.FLOAT, None)], inits)
        onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 13)]),
                  f"{out}/{name}.onnx")
        np.save(f"{out}/{name}_x.npy", x)


def conv_int(x, w):
    """Stride 1, padding 1, 3x3, in int64: (N, C, H, W) * (F, C, 3, 3)."""
    n, c, hh, ww = x.shape
    p = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    cols = np.stack([p[:, :, i:i + hh, j:j + ww] for i in range(3) for j in range(3)], 2)
    return np.einsum("nckhw,fck->nfhw", cols, w.reshape(w.shape[0], c, 9))


def fma32(x, y, z):
    """float32 fused multiply-add: x * y + z rounded once (exact in float64 here)."""
    return (x.astype(np.float64) * np.float64(y) + z.astype(np.float64)).astype(np.float32)


def quantized_add(a, sa, za, b, sb, zb, sc, zc, t):
    """ONNX Runtime's x86 QLinearAdd: fma(a, sa / sc, fma(b, sb / sc, fixed)) in float32."""
    ra, rb = np.float32(sa) / np.float32(sc), np.float32(sb) / np.float32(sc)
    fixed = np.float32(zc) - (ra * np.float32(za) + rb * np.float32(zb))
    c = fma32(a.astype(np.float32), ra, fma32(b.astype(np.float32), rb,
                                              np.full(b.shape, fixed, np.float32)))
    info = np.iinfo(t)
    return np.clip(np.rint(c), info.min, info.max).astype(t)


def max_pool_bytes(y):
    """3x3 / 2 max pooling with padding 1 of (N, C, H, W) 8-bit values."""
    n, c, hh, ww = y.shape
    p = np.pad(y, ((0, 0), (0, 0), (1, 1), (1, 1)), constant_values=np.iinfo(y.dtype).min)
    oh, ow = (hh - 1) // 2 + 1, (ww - 1) // 2 + 1
    taps = [p[:, :, i:i + 2 * oh:2, j:j + 2 * ow:2] for i in range(3) for j in range(3)]
    return np.max(np.stack(taps), 0)


def reference(seed, op, at, per_channel, with_bias, relu, sizes):
    residual, pooled, flattened = op.endswith("+"), op.endswith("^"), op.endswith("~")
    concatenated = op.endswith("|")
    op = op.rstrip("+^~|")
    relu_on_sum = residual and relu
    relu = relu and not residual
    x, wq, sw, sx, zx, bq, sb, sy, zy = case_data(seed, op, at, per_channel, sizes, relu)
    xq8 = quantize(x, sx, zx, at)
    xq = xq8.astype(np.int64) - np.int64(zx)
    w = wq.astype(np.int64)
    scale = (sx * sw).astype(np.float32) / sy
    if op == "Conv":
        acc = conv_int(xq, w)
        if with_bias:
            acc = acc + bq.reshape(1, -1, 1, 1)
        scale = np.reshape(scale, (1, -1, 1, 1)) if per_channel else scale
    elif op == "Gemm":
        acc = xq @ w.T
        if with_bias:
            acc = acc + bq.reshape(1, -1)
    else:
        acc = xq @ w
    info = np.iinfo(type(zy))
    y = np.rint(acc.astype(np.float32) * np.float32(scale).astype(np.float32)) + np.float32(zy)
    yq = np.clip(y, info.min, info.max).astype(type(zy))
    if relu:
        yq = np.maximum(yq, zy)
    if residual:
        ss, zs = sum_quantization(at, relu_on_sum)
        yq = quantized_add(yq, sy, zy, xq8, sx, zx, ss, zs, at)
        sy, zy = ss, zs
    if pooled:
        yq = max_pool_bytes(yq)
    if flattened:
        yq = yq.reshape(yq.shape[0], -1)
    if concatenated:
        yq = np.concatenate([yq, yq], 1)
    return ((yq.astype(np.float32) - np.float32(zy)) * sy).astype(np.float32)


def check(out):
    ort = shutil.which("node") and os.path.isdir(os.path.join(ORT_MODULES, "onnxruntime-node"))
    for seed, case in enumerate(CASES):
        name = case[0]
        got = np.load(f"{out}/{name}/out.npy")
        want = reference(seed, *case[1:])
        assert np.array_equal(got, want), \
            f"{name}: {np.count_nonzero(got != want)} of {want.size} differ from NumPy"
        if ort:
            subprocess.run(["node", os.path.join(HERE, "ort_case.js"), f"{out}/{name}.onnx",
                            "--output-dir", f"{out}/{name}_ort", "--input",
                            f"x={out}/{name}_x.npy"], check=True,
                           env=dict(os.environ, NODE_PATH=ORT_MODULES))
            theirs = np.load(f"{out}/{name}_ort/out.npy")
            assert np.array_equal(got, theirs), \
                f"{name}: {np.count_nonzero(got != theirs)} of {got.size} differ from ORT"
    print(f"{len(CASES)} QDQ models match NumPy's integer arithmetic exactly")
    print("ONNX Runtime: " + ("matches" if ort else "not installed (bench/.peers)"))


if __name__ == "__main__":
    {"make": make, "check": check}[sys.argv[1]](sys.argv[2])
