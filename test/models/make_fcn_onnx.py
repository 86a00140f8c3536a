# SPDX-License-Identifier: Apache-2.0
# Makes the fixtures of test/models/fcn_dynamic_hw.test: a small fully convolutional
# segmentation-style network (3x3 convolutions with BatchNorm, a strided one, a residual
# add, a 1x1 head and a sigmoid: no Resize) with seeded weights and BatchNorm statistics,
# exported by torch.onnx.export with dynamic batch, height and width axes, and for each
# requested (batch, height, width) a seeded input and PyTorch's output on it.
import argparse
import os

import numpy as np
import torch
import torch.nn as nn


class FCN(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 16, 3, padding=1)
        self.b1 = nn.BatchNorm2d(16)
        self.c2 = nn.Conv2d(16, 32, 3, stride=2, padding=1)
        self.c3 = nn.Conv2d(32, 32, 3, padding=1)
        self.b3 = nn.BatchNorm2d(32)
        self.head = nn.Conv2d(32, 5, 1)

    def forward(self, x):
        y = torch.relu(self.b1(self.c1(x)))
        y = torch.relu(self.c2(y))
        y = torch.relu(self.b3(self.c3(y)) + y)
        return torch.sigmoid(self.head(y))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--onnx", required=True, help="the exported model")
    p.add_argument("--out-dir", required=True,
                   help="writes input_<B>x<H>x<W>.npy and output_<B>x<H>x<W>.npy here")
    p.add_argument("--sizes", default="1x20x24,2x33x17",
                   help="comma-separated BxHxW of the reference runs")
    a = p.parse_args()
    torch.manual_seed(0)
    torch.set_num_threads(1)  # one summation order, run to run
    model = FCN().eval()
    with torch.no_grad():
        for bn in (model.b1, model.b3):
            bn.weight.uniform_(0.5, 1.5)
            bn.bias.uniform_(-0.2, 0.2)
            bn.running_mean.uniform_(-0.2, 0.2)
            bn.running_var.uniform_(0.5, 2.0)
    os.makedirs(a.out_dir, exist_ok=True)
    g = torch.Generator().manual_seed(7)
    for size in a.sizes.split(","):
        b, h, w = map(int, size.split("x"))
        x = torch.randn(b, 3, h, w, generator=g)
        with torch.no_grad():
            y = model(x)
        np.save(os.path.join(a.out_dir, f"input_{size}.npy"), x.numpy())
        np.save(os.path.join(a.out_dir, f"output_{size}.npy"), y.numpy())
    torch.onnx.export(model, torch.zeros(1, 3, 16, 16), a.onnx, opset_version=13,
                      input_names=["image"], output_names=["mask"],
                      dynamic_axes={"image": {0: "N", 2: "H", 3: "W"},
                                    "mask": {0: "N", 2: "OH", 3: "OW"}})


if __name__ == "__main__":
    main()
