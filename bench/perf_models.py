# SPDX-License-Identifier: Apache-2.0
"""The networks bench/perf_bench.py times, as PyTorch modules with fixed
weights, so that every peer runs the same function: PyTorch runs the module,
ONNX Runtime and mxc its ONNX export (mxc compiles the MXNet original of the
CIFAR ResNet-20, whose weights the module loads from the .params file)."""
import struct

import numpy as np
import torch

SEED = 0
OPSET = 13


def mlp():
    """MLP 784-256-10."""
    return torch.nn.Sequential(torch.nn.Linear(784, 256), torch.nn.ReLU(),
                               torch.nn.Linear(256, 10))


def lenet():
    """LeNet as examples/models/lenet.json has it: conv 20 5x5, tanh, max
    pool, conv 50 5x5, tanh, max pool, FC 500, tanh, FC 10."""
    return torch.nn.Sequential(
        torch.nn.Conv2d(1, 20, 5), torch.nn.Tanh(), torch.nn.MaxPool2d(2, 2),
        torch.nn.Conv2d(20, 50, 5), torch.nn.Tanh(), torch.nn.MaxPool2d(2, 2),
        torch.nn.Flatten(), torch.nn.Linear(800, 500), torch.nn.Tanh(),
        torch.nn.Linear(500, 10))


def resnet18():
    """torchvision's ResNet-18, 1000 classes, initial weights (fresh BatchNorm
    statistics: the export folds them into the convolutions anyway)."""
    import torchvision
    return torchvision.models.resnet18()


def seeded(make):
    """The module `make` builds, with weights drawn from SEED, in eval mode."""
    torch.manual_seed(SEED)
    return make().eval()


# ---------------------------------------------------------------------------
# GluonCV's CIFAR ResNet-20 v1 with the weights of its MXNet .params file
# ---------------------------------------------------------------------------

_DTYPES = {0: "<f4", 1: "<f8", 2: "<f2"}  # MXNet's type flags, float only


def read_mxnet_params(path):
    """name -> float32 array from an MXNet .params file (NDArray list, V1-V3
    records), without the `arg:`/`aux:` prefixes."""
    data = open(path, "rb").read()
    pos = 0

    def take(fmt):
        nonlocal pos
        values = struct.unpack_from("<" + fmt, data, pos)
        pos += struct.calcsize("<" + fmt)
        return values

    magic, _, count = take("QQQ")
    if magic != 0x112:
        raise ValueError(f"{path}: not an MXNet NDArray list (magic {magic:#x})")
    arrays = []
    for _ in range(count):
        (record,) = take("I")
        if record in (0xF993FAC9, 0xF993FACA):  # V2, V3: + storage type
            take("i")
        elif record != 0xF993FAC8:  # V1
            raise ValueError(f"{path}: unsupported NDArray record {record:#x}")
        (ndim,) = take("I")
        shape = take(f"{ndim}q")
        _, _, flag = take("iii")  # device type, device id, dtype
        if flag not in _DTYPES:
            raise ValueError(f"{path}: unsupported dtype flag {flag}")
        n = int(np.prod(shape))
        array = np.frombuffer(data, _DTYPES[flag], n, pos)
        pos += array.nbytes
        arrays.append(array.astype(np.float32).reshape(shape))
    (num_names,) = take("Q")
    names = []
    for _ in range(num_names):
        (length,) = take("Q")
        names.append(data[pos:pos + length].decode().split(":", 1)[-1])
        pos += length
    return dict(zip(names, arrays))


class _Loaded:
    """Builds layers from the named arrays of a .params file, checking that
    every array is used exactly once."""

    def __init__(self, params):
        self.params, self.unused = params, set(params)

    def take(self, name):
        self.unused.discard(name)
        return torch.from_numpy(self.params[name].copy())

    def conv(self, name, stride, pad):
        weight = self.take(name + "_weight")
        out, inp, kh, kw = weight.shape
        layer = torch.nn.Conv2d(inp, out, (kh, kw), stride, pad, bias=False)
        layer.weight.data.copy_(weight)
        return layer

    def batch_norm(self, name):
        # Gluon's BatchNorm: eps 1e-5, gamma used (fix_gamma False in the JSON).
        gamma = self.take(name + "_gamma")
        layer = torch.nn.BatchNorm2d(gamma.numel(), eps=1e-5)
        layer.weight.data.copy_(gamma)
        layer.bias.data.copy_(self.take(name + "_beta"))
        layer.running_mean.copy_(self.take(name + "_running_mean"))
        layer.running_var.copy_(self.take(name + "_running_var"))
        return layer

    def dense(self, name):
        weight = self.take(name + "_weight")
        layer = torch.nn.Linear(weight.shape[1], weight.shape[0])
        layer.weight.data.copy_(weight)
        layer.bias.data.copy_(self.take(name + "_bias"))
        return layer


class _BasicBlockV1(torch.nn.Module):
    def __init__(self, body, downsample):
        super().__init__()
        self.body, self.downsample = body, downsample

    def forward(self, x):
        residual = x if self.downsample is None else self.downsample(x)
        return torch.relu(self.body(x) + residual)


class CifarResNet20V1(torch.nn.Sequential):
    """GluonCV's cifar_resnet20_v1: conv 3x3 + BN (no ReLU), three stages of
    three basic blocks (16, 32, 64 channels; the first block of stages 2 and
    3 strides 2 and has a 1x1 conv + BN shortcut), global average pooling and
    a 10-way dense layer. Layer names follow Gluon's creation order, e.g.
    stage 2's shortcut is its conv2/batchnorm2."""

    def __init__(self, params):
        loaded = _Loaded(params)
        p = "cifarresnetv10_"
        layers = [loaded.conv(p + "conv0", 1, 1), loaded.batch_norm(p + "batchnorm0")]
        for stage, stride in ((1, 1), (2, 2), (3, 2)):
            q = f"{p}stage{stage}_"
            k = 0  # Gluon numbers convs and BNs per stage in creation order.
            for block in range(3):
                s = stride if block == 0 else 1
                body = torch.nn.Sequential(
                    loaded.conv(f"{q}conv{k}", s, 1), loaded.batch_norm(f"{q}batchnorm{k}"),
                    torch.nn.ReLU(),
                    loaded.conv(f"{q}conv{k + 1}", 1, 1),
                    loaded.batch_norm(f"{q}batchnorm{k + 1}"))
                downsample = None
                if s != 1:
                    downsample = torch.nn.Sequential(
                        loaded.conv(f"{q}conv{k + 2}", s, 0),
                        loaded.batch_norm(f"{q}batchnorm{k + 2}"))
                k += 2 if downsample is None else 3
                layers.append(_BasicBlockV1(body, downsample))
        layers += [torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(),
                   loaded.dense(p + "dense0")]
        if loaded.unused:
            raise ValueError("unused parameters: " + ", ".join(sorted(loaded.unused)))
        super().__init__(*layers)
        self.eval()


# ---------------------------------------------------------------------------
# ONNX
# ---------------------------------------------------------------------------

def export_onnx(model, example, path):
    """Exports `model` at the shape of `example` (input `data`, output `out`)."""
    with torch.no_grad():
        torch.onnx.export(model, torch.from_numpy(example), path, opset_version=OPSET,
                          input_names=["data"], output_names=["out"])


def matmul_onnx(n, path):
    """A one-op ONNX model: out = A @ B with A and B n x n float32 inputs."""
    import onnx
    from onnx import TensorProto, helper
    a, b, out = (helper.make_tensor_value_info(name, TensorProto.FLOAT, [n, n])
                 for name in ("A", "B", "out"))
    graph = helper.make_graph([helper.make_node("MatMul", ["A", "B"], ["out"])],
                              "sgemm", [a, b], [out])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    onnx.checker.check_model(model)
    onnx.save(model, path)
