# SPDX-License-Identifier: Apache-2.0
# Writes seeded inputs for examples/models/lenet.json at 1x1x28x28 (the MNIST shape LeNet is
# built for) into DIR as <input name>.npy, and DIR/ref_softmax_output.npy: the output NumPy
# computes for them from MXNet's operator semantics (Convolution without padding, tanh, max
# Pooling with the "valid" convention, Flatten, FullyConnected, SoftmaxOutput = softmax at
# inference). Usage: lenet_ref.py DIR
import os
import sys

import numpy as np

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(20240607)


def arr(name, shape, scale):
    a = (rng.standard_normal(shape) * scale).astype(np.float32)
    np.save(os.path.join(out, name + ".npy"), a)
    return a.astype(np.float64)


x = arr("data", (1, 1, 28, 28), 1.0)
w0 = arr("convolution0_weight", (20, 1, 5, 5), 0.2)
b0 = arr("convolution0_bias", (20,), 0.1)
w1 = arr("convolution1_weight", (50, 20, 5, 5), 0.05)
b1 = arr("convolution1_bias", (50,), 0.1)
f0 = arr("fullyconnected0_weight", (500, 800), 0.05)
c0 = arr("fullyconnected0_bias", (500,), 0.1)
f1 = arr("fullyconnected1_weight", (1000, 500), 0.1)
c1 = arr("fullyconnected1_bias", (1000,), 0.1)


def conv(x, w, b):  # NCHW, stride 1, no padding
    win = np.lib.stride_tricks.sliding_window_view(x, w.shape[2:], axis=(2, 3))
    return np.einsum("nchwij,kcij->nkhw", win, w) + b[None, :, None, None]


def maxpool2(x):  # kernel (2, 2), stride (2, 2), valid
    n, c, h, w = x.shape
    return x[:, :, :h // 2 * 2, :w // 2 * 2].reshape(n, c, h // 2, 2, w // 2, 2).max(axis=(3, 5))


h = maxpool2(np.tanh(conv(x, w0, b0)))
h = maxpool2(np.tanh(conv(h, w1, b1)))
h = np.tanh(h.reshape(1, -1) @ f0.T + c0)
z = h @ f1.T + c1
e = np.exp(z - z.max(axis=1, keepdims=True))
np.save(os.path.join(out, "ref_softmax_output.npy"), (e / e.sum(axis=1, keepdims=True)).astype(np.float32))
