# SPDX-License-Identifier: Apache-2.0
# qdq-torch.test's model: a Conv + ReLU quantized by torch's eager post-training quantization
# (fbgemm, calibrated on seeded data) and exported to ONNX as torch 1.13 writes it (QDQ with
# Constant weights, an identity Cast after each QuantizeLinear, the bias's zero point made
# by ConstantOfShape). `make` writes the model, an input, torch's quantized output and its
# quantization step; `check` compares mxc's output with it: torch's fbgemm requantizes with
# arithmetic of its own, so a few outputs may differ by one step (5 of 4,608 here), none by
# more; ONNX Runtime, which runs the ONNX operators' arithmetic, must match exactly where it
# is installed (bench/.peers).
import os
import shutil
import subprocess
import sys

import numpy as np
import torch
import torch.ao.quantization as tq
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.q, self.dq = tq.QuantStub(), tq.DeQuantStub()
        self.conv, self.relu = nn.Conv2d(8, 16, 3, padding=1), nn.ReLU()

    def forward(self, x):
        return self.dq(self.relu(self.conv(self.q(x))))


def make(out):
    torch.manual_seed(0)
    net = Net().eval()
    net.qconfig = tq.get_default_qconfig("fbgemm")
    tq.fuse_modules(net, [["conv", "relu"]], inplace=True)
    tq.prepare(net, inplace=True)
    net(torch.randn(8, 8, 12, 12))
    tq.convert(net, inplace=True)
    x = torch.randn(2, 8, 12, 12)
    torch.onnx.export(net, x, f"{out}/net.onnx", opset_version=13, input_names=["x"],
                      output_names=["y"])
    np.save(f"{out}/x.npy", x.numpy())
    with torch.no_grad():
        np.save(f"{out}/torch_y.npy", net(x).numpy())
    np.save(f"{out}/step.npy", np.float32(net.conv.scale))


def check(out):
    want, got = np.load(f"{out}/torch_y.npy"), np.load(f"{out}/y/y.npy")
    step = float(np.load(f"{out}/step.npy"))
    off = np.abs(got.astype(np.float64) - want)
    assert off.max() <= step * 1.001, f"off by {off.max()}, more than one step {step}"
    assert np.count_nonzero(off) <= want.size // 100, f"{np.count_nonzero(off)} differ"
    print("torch's quantized Conv + ReLU: within one step everywhere")
    here = os.path.dirname(os.path.abspath(__file__))
    modules = os.path.join(here, "..", "..", "bench", ".peers", "node_modules")
    if shutil.which("node") and os.path.isdir(os.path.join(modules, "onnxruntime-node")):
        subprocess.run(["node", os.path.join(here, "ort_case.js"), f"{out}/net.onnx",
                        "--output-dir", f"{out}/ort", "--input", f"x={out}/x.npy"],
                       check=True, env=dict(os.environ, NODE_PATH=modules))
        theirs = np.load(f"{out}/ort/y.npy")
        differ = np.count_nonzero(got != theirs)
        assert differ == 0, f"{differ} of {got.size} differ from ONNX Runtime"


if __name__ == "__main__":
    {"make": make, "check": check}[sys.argv[1]](sys.argv[2])
