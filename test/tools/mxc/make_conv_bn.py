# SPDX-License-Identifier: Apache-2.0
"""Writes conv_bn.onnx (convolutions followed by BatchNormalization, some
foldable into the convolution's weights and some not), an input, and each
output computed independently in float64 with numpy, for
fold-batchnorm.test.

Outputs:
  folded  = Relu(BN1(Conv(x, w1)))             conv without bias: folds
  biased  = BN2(Conv(x, w2, b2))               conv with bias: folds
  shared  = BN3(Conv(x, w3)), also conv3 = Conv(x, w3) itself: the
            convolution has a second reader, so it must not fold
  direct  = BN4(x)                             no convolution to fold into
"""
import os
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto

out_dir = sys.argv[1]
rng = np.random.default_rng(7)
C, F, H, W = 3, 5, 6, 7


def rand(*shape):
    return rng.uniform(-1, 1, shape).astype(np.float32)


def bn_params(prefix, n):
    return {prefix + "_scale": rand(n), prefix + "_bias": rand(n),
            prefix + "_mean": rand(n),
            prefix + "_var": rng.uniform(0.2, 2, n).astype(np.float32)}


inits = {"w1": rand(F, C, 3, 3), "w2": rand(F, C, 3, 3), "b2": rand(F),
         "w3": rand(F, C, 1, 1)}
for p, n in (("bn1", F), ("bn2", F), ("bn3", F), ("bn4", C)):
    inits.update(bn_params(p, n))
EPS = 1e-3


def bn_node(prefix, x, y):
    return helper.make_node(
        "BatchNormalization",
        [x] + [prefix + s for s in ("_scale", "_bias", "_mean", "_var")], [y],
        epsilon=EPS, name=prefix)


nodes = [
    helper.make_node("Conv", ["x", "w1"], ["c1"], pads=[1, 1, 1, 1], name="conv1"),
    bn_node("bn1", "c1", "n1"),
    helper.make_node("Relu", ["n1"], ["folded"], name="relu1"),
    helper.make_node("Conv", ["x", "w2", "b2"], ["c2"], pads=[1, 1, 1, 1], name="conv2"),
    bn_node("bn2", "c2", "biased"),
    helper.make_node("Conv", ["x", "w3"], ["conv3"], name="conv3"),
    bn_node("bn3", "conv3", "shared"),
    bn_node("bn4", "x", "direct"),
]
outputs = {"folded": (1, F, H, W), "biased": (1, F, H, W), "shared": (1, F, H, W),
           "conv3": (1, F, H, W), "direct": (1, C, H, W)}
graph = helper.make_graph(
    nodes, "conv_bn",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, (1, C, H, W))],
    [helper.make_tensor_value_info(k, TensorProto.FLOAT, v) for k, v in outputs.items()],
    [numpy_helper.from_array(v, k) for k, v in inits.items()])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
onnx.checker.check_model(model)
onnx.save(model, os.path.join(out_dir, "conv_bn.onnx"))

x = rand(1, C, H, W)
np.save(os.path.join(out_dir, "x.npy"), x)


def conv(x, w, b=None, pad=0):
    x = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    f, c, kh, kw = w.shape
    oh, ow = x.shape[2] - kh + 1, x.shape[3] - kw + 1
    y = np.zeros((1, f, oh, ow))
    for r in range(kh):
        for s in range(kw):
            y += np.einsum("fc,nchw->nfhw", w[:, :, r, s].astype(np.float64),
                           x[:, :, r:r + oh, s:s + ow])
    return y if b is None else y + b.astype(np.float64)[None, :, None, None]


def bn(x, prefix):
    g, b, m, v = (inits[prefix + s].astype(np.float64)[None, :, None, None]
                  for s in ("_scale", "_bias", "_mean", "_var"))
    return (x - m) / np.sqrt(v + EPS) * g + b


c3 = conv(x, inits["w3"])
expected = {"folded": np.maximum(bn(conv(x, inits["w1"], pad=1), "bn1"), 0),
            "biased": bn(conv(x, inits["w2"], inits["b2"], pad=1), "bn2"),
            "shared": bn(c3, "bn3"), "conv3": c3, "direct": bn(x, "bn4")}
for k, v in expected.items():
    np.save(os.path.join(out_dir, "want_" + k + ".npy"), v.astype(np.float32))
