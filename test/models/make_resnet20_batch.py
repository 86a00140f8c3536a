# SPDX-License-Identifier: Apache-2.0
# A batch for test/models/cifar_resnet20_dynamic.test: the recorded photo as row 0 and
# seeded random images after it, and PyTorch's logits for every row from an independent
# PyTorch build of GluonCV's CIFAR ResNet-20 with the .params file's weights
# (bench/perf_models.py).
import argparse
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "bench"))
from perf_models import CifarResNet20V1, read_mxnet_params  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--params", required=True)
    p.add_argument("--photo", required=True, help="a 1x3x32x32 .npy")
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--out-dir", required=True)
    a = p.parse_args()
    torch.set_num_threads(1)
    model = CifarResNet20V1(read_mxnet_params(a.params))
    g = np.random.default_rng(3)
    x = g.standard_normal((a.batch, 3, 32, 32)).astype(np.float32)
    x[0] = np.load(a.photo)[0]
    with torch.no_grad():
        y = model(torch.from_numpy(x)).numpy()
    os.makedirs(a.out_dir, exist_ok=True)
    np.save(os.path.join(a.out_dir, "input.npy"), x)
    np.save(os.path.join(a.out_dir, "output.npy"), y)
    np.save(os.path.join(a.out_dir, "output_row0.npy"), y[:1])


if __name__ == "__main__":
    main()
