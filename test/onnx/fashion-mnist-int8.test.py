# SPDX-License-Identifier: Apache-2.0
# fashion-mnist-int8.test's models: a small CNN (two Conv + BatchNorm + ReLU + MaxPool
# stages, then Linear + ReLU + Linear) trained here with torch on 40,000 Fashion-MNIST
# images for one epoch (seeded, deterministic, a few seconds on two cores), exported to ONNX
# in float, then quantized by torch 1.13's eager post-training quantization (fbgemm:
# per-channel int8 weights, uint8 activations, Conv + BatchNorm + ReLU fused, calibrated on
# 500 training images the training did not see) and exported as QDQ with every layer, the
# classifier included, in int8: torch.flatten exports (a reshape to a computed shape trips
# torch 1.13's exporter, export.cpp:891), and Linear + ReLU stay two modules since
# quantized::linear_relu does not export (the ReLU becomes DQ -> Relu -> Q). Both export at
# the test set's size, so one run of each library classifies all 10,000 test images.
# `make` writes the models, the images, their labels and torch's logits; `check` holds
# mxc's libraries to what quantization should cost: the float library's logits are
# torch's (1e-4), the int8 library's accuracy is within 0.5 points of the float one's, and
# its predictions are torch's quantized model's on at least 99% of the images (fbgemm
# requantizes with arithmetic of its own); ONNX Runtime's int8 run of the same QDQ model is
# compared too where it is installed (bench/.peers). mxc quantizes the float export itself
# too (mxc --quantize=int8, calibrated on 10,000 training images the training did not see,
# by min/max and by percentile), held to the same 0.5 points.
import gzip
import os
import shutil
import subprocess
import sys
import warnings

import numpy as np
import torch
import torch.ao.quantization as tq
import torch.nn.functional as F
from torch import nn

DATA = "/usr/share/datasets/fashion-mnist"
HERE = os.path.dirname(os.path.abspath(__file__))
ORT_MODULES = os.path.join(HERE, "..", "..", "bench", ".peers", "node_modules")
TRAIN, CALIBRATE = 40000, 500


def read(name, skip):
    with gzip.open(os.path.join(DATA, name)) as f:
        return np.frombuffer(f.read(), np.uint8, offset=skip)


def images(name):
    return (read(name, 16).reshape(-1, 1, 28, 28) / np.float32(255)).astype(np.float32)


class Net(nn.Module):
    """The CNN in eager quantization's terms: modules for what fuses, stubs at the ends."""

    def __init__(self):
        super().__init__()
        self.quant, self.dequant = tq.QuantStub(), tq.DeQuantStub()
        self.conv1, self.bn1 = nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8)
        self.conv2, self.bn2 = nn.Conv2d(8, 16, 3, padding=1), nn.BatchNorm2d(16)
        self.relu1, self.relu2 = nn.ReLU(), nn.ReLU()
        self.pool = nn.MaxPool2d(2)
        self.fc1, self.relu3, self.fc2 = nn.Linear(16 * 7 * 7, 64), nn.ReLU(), nn.Linear(64, 10)

    def forward(self, x):
        x = self.pool(self.relu1(self.bn1(self.conv1(self.quant(x)))))
        x = self.pool(self.relu2(self.bn2(self.conv2(x))))
        return self.dequant(self.fc2(self.relu3(self.fc1(torch.flatten(x, 1)))))


def train(net, x, y):
    opt = torch.optim.Adam(net.parameters(), lr=2e-3)
    order = torch.randperm(len(x), generator=torch.Generator().manual_seed(0))
    net.train()
    for i in range(0, len(x), 100):
        batch = order[i:i + 100]
        loss = F.cross_entropy(net(x[batch]), y[batch])
        opt.zero_grad()
        loss.backward()
        opt.step()
    return net.eval()


def quantize(net, calibration):
    net.qconfig = tq.get_default_qconfig("fbgemm")
    tq.fuse_modules(net, [["conv1", "bn1", "relu1"], ["conv2", "bn2", "relu2"]], inplace=True)
    tq.prepare(net, inplace=True)
    with torch.no_grad():
        net(calibration)
    return tq.convert(net, inplace=True)


def make(out):
    warnings.filterwarnings("ignore")  # the exporter's notes on quantized ops' shape inference
    torch.manual_seed(0)
    torch.use_deterministic_algorithms(True)
    x = torch.from_numpy(images("train-images-idx3-ubyte.gz"))
    y = torch.from_numpy(read("train-labels-idx1-ubyte.gz", 8).astype(np.int64))
    test = torch.from_numpy(images("t10k-images-idx3-ubyte.gz"))
    net = train(Net(), x[:TRAIN], y[:TRAIN])
    export = dict(opset_version=13, input_names=["x"], output_names=["y"])
    with torch.no_grad():
        torch.onnx.export(net, test, f"{out}/float.onnx", **export)
        np.save(f"{out}/torch_float.npy", net(test).numpy())
        qnet = quantize(net, x[TRAIN:TRAIN + CALIBRATE])
        torch.onnx.export(qnet, test, f"{out}/int8.onnx", **export)
        np.save(f"{out}/torch_int8.npy", qnet(test).numpy())
    np.save(f"{out}/x.npy", test.numpy())
    np.save(f"{out}/labels.npy", read("t10k-labels-idx1-ubyte.gz", 8))
    # mxc --quantize=int8's calibration set: training images the training did not see, a
    # batch of the float export (10,000).
    np.save(f"{out}/calibration.npy", x[TRAIN:TRAIN + len(test)].numpy())


def run_ort(out, model):
    if not (shutil.which("node") and os.path.isdir(os.path.join(ORT_MODULES, "onnxruntime-node"))):
        return None
    subprocess.run(["node", os.path.join(HERE, "ort_case.js"), f"{out}/{model}.onnx",
                    "--output-dir", f"{out}/ort_{model}", "--input", f"x={out}/x.npy"],
                   check=True, env=dict(os.environ, NODE_PATH=ORT_MODULES))
    return np.load(f"{out}/ort_{model}/y.npy")


def check(out):
    labels = np.load(f"{out}/labels.npy")
    want_float, want_int8 = np.load(f"{out}/torch_float.npy"), np.load(f"{out}/torch_int8.npy")
    got_float, got_int8 = np.load(f"{out}/float/y.npy"), np.load(f"{out}/int8/y.npy")
    accuracy = lambda logits: 100 * np.mean(logits.argmax(1) == labels)
    off = np.abs(got_float.astype(np.float64) - want_float).max()
    print(f"torch float: test accuracy {accuracy(want_float):.2f}%, "
          f"torch int8: {accuracy(want_int8):.2f}%")
    print(f"float library: test accuracy {accuracy(got_float):.2f}%, "
          f"logits within {off:.2g} of torch's")
    assert np.allclose(got_float, want_float, rtol=1e-4, atol=1e-4), f"logits off by {off}"
    agree = 100 * np.mean(got_int8.argmax(1) == want_int8.argmax(1))
    print(f"int8 library: test accuracy {accuracy(got_int8):.2f}%, "
          f"predictions torch's int8 ones on {agree:.2f}% of the images")
    loss = accuracy(got_float) - accuracy(got_int8)
    assert loss <= 0.5, f"int8 loses {loss:.2f} points"
    assert agree >= 99, f"int8 predictions torch's on only {agree:.2f}%"
    theirs = run_ort(out, "int8")
    if theirs is not None:
        differ = np.count_nonzero(got_int8 != theirs)
        print(f"ONNX Runtime int8: {differ} of {got_int8.size} logits differ, test accuracy "
              f"{accuracy(theirs):.2f}%", file=sys.stderr)
        assert differ == 0, f"{differ} of {got_int8.size} logits differ from ONNX Runtime"
    print("int8 within 0.5 points of float")
    for method in ("minmax", "percentile"):
        ours = np.load(f"{out}/mxc_{method}/y.npy")
        loss = accuracy(got_float) - accuracy(ours)
        print(f"mxc --quantize=int8 --calibration={method}: test accuracy "
              f"{accuracy(ours):.2f}%")
        assert loss <= 0.5, f"mxc's {method} quantization loses {loss:.2f} points"
    print("mxc's int8 within 0.5 points of float")


if __name__ == "__main__":
    {"make": make, "check": check}[sys.argv[1]](sys.argv[2])
