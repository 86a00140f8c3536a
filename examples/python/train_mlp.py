#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""The MXNet paper's Figure 2 in Python: a multi-layer perceptron declared
as a symbol, bound and compiled by mxc.Executor, and trained by imperative
NDArray updates (w -= lr * g) on Fashion-MNIST (Debian's
dataset-fashion-mnist).

    PYTHONPATH=build/python python3 examples/python/train_mlp.py [--epochs 1]
"""
import argparse
import gzip
import os

import numpy as np

import mxc
from mxc import sym

DATA = "/usr/share/datasets/fashion-mnist"


def read(name, offset):
    with gzip.open(os.path.join(DATA, name)) as f:
        return np.frombuffer(f.read(), np.uint8, offset=offset)


def main(epochs=1, batch=100, lr=0.1, limit=None):
    images = read("train-images-idx3-ubyte.gz", 16).reshape(-1, 784) / np.float32(255)
    labels = read("train-labels-idx1-ubyte.gz", 8).astype(np.float32)
    test_images = read("t10k-images-idx3-ubyte.gz", 16).reshape(-1, 784) / np.float32(255)
    test_labels = read("t10k-labels-idx1-ubyte.gz", 8)
    if limit:
        images, labels = images[:limit], labels[:limit]

    # The network, symbolically (Figure 2's mlp).
    data = sym.Variable("data")
    fc1 = sym.FullyConnected(data, name="fc1", num_hidden=128)
    act1 = sym.Activation(fc1, name="relu1", act_type="relu")
    fc2 = sym.FullyConnected(act1, name="fc2", num_hidden=10)
    net = sym.SoftmaxOutput(fc2, name="softmax")

    # Bound to the batch's shape and compiled; then trained imperatively.
    exe = mxc.Executor(net, {"data": (batch, 784)}, seed=1)
    params = {name: exe.param(name) for name in exe.param_names}
    for epoch in range(epochs):
        order = np.random.default_rng(epoch).permutation(len(images))
        for start in range(0, len(order) - batch + 1, batch):
            rows = order[start:start + batch]
            exe.set_input("data", images[rows])
            exe.set_input("softmax_label", labels[rows])
            exe.backward()
            for name, w in params.items():
                w -= lr / batch * exe.gradient(name)
        correct = 0
        for start in range(0, len(test_images) - batch + 1, batch):
            exe.set_input("data", test_images[start:start + batch])
            exe.forward()
            predicted = exe.outputs[0].asnumpy().argmax(axis=1)
            correct += int((predicted == test_labels[start:start + batch]).sum())
        accuracy = correct / (len(test_images) // batch * batch)
        print("epoch %d: test accuracy %.4f" % (epoch, accuracy))
    return accuracy


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--epochs", type=int, default=1)
    p.add_argument("--limit", type=int, help="train on the first N images only")
    a = p.parse_args()
    main(a.epochs, limit=a.limit)
