#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
# Checks mxc --train against PyTorch (issue #4): a small MXNet model with
# known initial parameters is compiled with `mxc --train --optimizer X`,
# `mxrun --function train_step --steps N` runs N optimizer steps and saves
# the parameters as .params, and the result must match the same N steps of
# torch.optim (autograd gradients of the summed cross entropy times
# rescale_grad = 1/batch, as MXNet's SoftmaxOutput with Module; Adam and
# RMSProp apply MXNet's update rules, whose epsilon torch.optim places
# elsewhere, to the autograd gradients). The BatchNorm
# model also checks the moving statistics (momentum * old + (1 - momentum) *
# batch statistic, population variance) and grad's gradients.
#
# usage: check_train_step.py MXC MXRUN WORK_DIR
import json
import os
import subprocess
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "e2e"))
from mxnet_reference import params_bytes  # noqa: E402
sys.path.insert(0, os.path.join(HERE, "..", "..", "bench"))
from bench_util import read_params  # noqa: E402

BATCH, STEPS, LR = 8, 3, 0.05


def node(op, name, inputs, **attrs):
    return {"op": op, "name": name, "inputs": inputs,
            "attrs": {k: str(v) for k, v in attrs.items()}}


def mlp():
    """data(8x12) -> FC 16 -> relu -> FC 5 -> SoftmaxOutput."""
    nodes = [node("null", "data", []), node("null", "fc1_weight", []),
             node("null", "fc1_bias", []),
             node("FullyConnected", "fc1", [[0, 0, 0], [1, 0, 0], [2, 0, 0]], num_hidden=16),
             node("Activation", "relu1", [[3, 0, 0]], act_type="relu"),
             node("null", "fc2_weight", []), node("null", "fc2_bias", []),
             node("FullyConnected", "fc2", [[4, 0, 0], [5, 0, 0], [6, 0, 0]], num_hidden=5),
             node("null", "softmax_label", []),
             node("SoftmaxOutput", "softmax", [[7, 0, 0], [8, 0, 0]])]
    return nodes, (BATCH, 12)


def mlp_logits():
    """mlp() without its loss head (as Gluon exports end), for --loss."""
    nodes, shape = mlp()
    return nodes[:-2], shape


def conv_bn(size=6):
    """data(8x2xSIZExSIZE) -> conv 3 3x3 -> BatchNorm -> relu -> max pool 2
    -> flatten -> FC 4 -> SoftmaxOutput. At sizes 6 and 10 the BatchNorm's
    4x4 and 8x8 planes take the lowering's partial sums in lanes (a
    multiple of 16 elements after the channel axis); at 5 (3x3) its single
    sums."""
    nodes = [node("null", "data", []), node("null", "conv_weight", []),
             node("null", "conv_bias", []),
             node("Convolution", "conv", [[0, 0, 0], [1, 0, 0], [2, 0, 0]],
                  kernel="(3, 3)", num_filter=3),
             node("null", "bn_gamma", []), node("null", "bn_beta", []),
             node("null", "bn_moving_mean", []), node("null", "bn_moving_var", []),
             node("BatchNorm", "bn", [[3, 0, 0], [4, 0, 0], [5, 0, 0], [6, 0, 0], [7, 0, 0]],
                  fix_gamma="False", eps=1e-5, momentum=0.9),
             node("Activation", "relu", [[8, 0, 0]], act_type="relu"),
             node("Pooling", "pool", [[9, 0, 0]], kernel="(2, 2)", stride="(2, 2)",
                  pool_type="max"),
             node("Flatten", "flat", [[10, 0, 0]]),
             node("null", "fc_weight", []), node("null", "fc_bias", []),
             node("FullyConnected", "fc", [[11, 0, 0], [12, 0, 0], [13, 0, 0]], num_hidden=4),
             node("null", "softmax_label", []),
             node("SoftmaxOutput", "softmax", [[14, 0, 0], [15, 0, 0]])]
    return nodes, (BATCH, 2, size, size)


def conv_net(batch):
    """data(batch x 4 x 9 x 11) -> conv 6 3x3 pad 1 -> relu -> conv 8 3x3
    stride 2 pad 1 -> relu -> depthwise conv 3x3 dilate 2 pad 2 -> relu ->
    conv 6 1x1 in 2 groups -> tanh -> avg pool 2 -> flatten -> FC 4 ->
    SoftmaxOutput: the convolution gradient kernels' strided, padded,
    dilated, grouped, depthwise and pointwise paths (data and weight
    gradients; the first layer's data gradient is not computed) on odd
    image sizes."""
    nodes = [node("null", "data", [])]
    layers = [("conv1", dict(kernel="(3, 3)", pad="(1, 1)", num_filter=6), "relu"),
              ("conv2", dict(kernel="(3, 3)", stride="(2, 2)", pad="(1, 1)",
                             num_filter=8), "relu"),
              ("conv3", dict(kernel="(3, 3)", dilate="(2, 2)", pad="(2, 2)",
                             num_filter=8, num_group=8), "relu"),
              ("conv4", dict(kernel="(1, 1)", num_filter=6, num_group=2), "tanh")]
    for name, attrs, act in layers:
        at = len(nodes) - 1
        nodes += [node("null", name + "_weight", []), node("null", name + "_bias", []),
                  node("Convolution", name, [[at, 0, 0], [at + 1, 0, 0], [at + 2, 0, 0]],
                       **attrs),
                  node("Activation", name + "_act", [[at + 3, 0, 0]], act_type=act)]
    at = len(nodes) - 1
    nodes += [node("Pooling", "pool", [[at, 0, 0]], kernel="(2, 2)", stride="(2, 2)",
                   pool_type="avg"),
              node("Flatten", "flat", [[at + 1, 0, 0]]),
              node("null", "fc_weight", []), node("null", "fc_bias", []),
              node("FullyConnected", "fc", [[at + 2, 0, 0], [at + 3, 0, 0], [at + 4, 0, 0]],
                   num_hidden=4),
              node("null", "softmax_label", []),
              node("SoftmaxOutput", "softmax", [[at + 5, 0, 0], [at + 6, 0, 0]])]
    return nodes, (batch, 4, 9, 11)


def layer_params(module, names):
    """The MXNet names of `module`'s layers' weights and biases."""
    out = {}
    for name in names:
        layer = getattr(module, name)
        out[name + "_weight"], out[name + "_bias"] = layer.weight, layer.bias
    return out


def branch_net():
    """data(8x4x8x8) -> conv 64 3x3 pad 1 -> relu -> conv 64 3x3 pad 1 ->
    relu -> [max pool 3x3 / 1 pad 1, conv 8 1x1] -> Concat -> avg pool 2
    -> flatten -> FC 4 -> SoftmaxOutput: the Winograd weight gradient (64
    channels and filters), the pointwise one, and a pooling gradient whose
    output lives in the Concat's buffer (a strided view the kernel call
    gets a contiguous copy of), as in Inception-BN."""
    nodes = [node("null", "data", [])]
    for name, filters in (("conv1", 64), ("conv2", 64)):
        at = len(nodes) - 1
        nodes += [node("null", name + "_weight", []), node("null", name + "_bias", []),
                  node("Convolution", name, [[at, 0, 0], [at + 1, 0, 0], [at + 2, 0, 0]],
                       kernel="(3, 3)", pad="(1, 1)", num_filter=filters),
                  node("Activation", name + "_act", [[at + 3, 0, 0]], act_type="relu")]
    trunk = len(nodes) - 1
    nodes += [node("Pooling", "branch_pool", [[trunk, 0, 0]], kernel="(3, 3)",
                   stride="(1, 1)", pad="(1, 1)", pool_type="max"),
              node("null", "conv3_weight", []), node("null", "conv3_bias", []),
              node("Convolution", "conv3", [[trunk, 0, 0], [trunk + 2, 0, 0],
                                            [trunk + 3, 0, 0]],
                   kernel="(1, 1)", num_filter=8)]
    at = len(nodes) - 1
    nodes += [node("Concat", "concat", [[trunk + 1, 0, 0], [at, 0, 0]], dim=1),
              node("Pooling", "pool", [[at + 1, 0, 0]], kernel="(2, 2)", stride="(2, 2)",
                   pool_type="avg"),
              node("Flatten", "flat", [[at + 2, 0, 0]]),
              node("null", "fc_weight", []), node("null", "fc_bias", []),
              node("FullyConnected", "fc", [[at + 3, 0, 0], [at + 4, 0, 0], [at + 5, 0, 0]],
                   num_hidden=4),
              node("null", "softmax_label", []),
              node("SoftmaxOutput", "softmax", [[at + 6, 0, 0], [at + 7, 0, 0]])]
    return nodes, (BATCH, 4, 8, 8)


class TorchBranchNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(4, 64, 3, padding=1)
        self.conv2 = torch.nn.Conv2d(64, 64, 3, padding=1)
        self.conv3 = torch.nn.Conv2d(64, 8, 1)
        self.fc = torch.nn.Linear(72 * 4 * 4, 4)

    def forward(self, x):
        h = torch.relu(self.conv2(torch.relu(self.conv1(x))))
        h = torch.cat([torch.nn.functional.max_pool2d(h, 3, 1, 1), self.conv3(h)], 1)
        return self.fc(torch.nn.functional.avg_pool2d(h, 2).flatten(1))

    def named(self):
        return layer_params(self, ("conv1", "conv2", "conv3", "fc"))


class TorchConvNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(4, 6, 3, padding=1)
        self.conv2 = torch.nn.Conv2d(6, 8, 3, stride=2, padding=1)
        self.conv3 = torch.nn.Conv2d(8, 8, 3, padding=2, dilation=2, groups=8)
        self.conv4 = torch.nn.Conv2d(8, 6, 1, groups=2)
        self.fc = torch.nn.Linear(36, 4)

    def forward(self, x):
        h = torch.relu(self.conv2(torch.relu(self.conv1(x))))
        h = torch.tanh(self.conv4(torch.relu(self.conv3(h))))
        return self.fc(torch.nn.functional.avg_pool2d(h, 2).flatten(1))

    def named(self):
        return layer_params(self, ("conv1", "conv2", "conv3", "conv4", "fc"))


class TorchMlp(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2 = torch.nn.Linear(12, 16), torch.nn.Linear(16, 5)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))

    def named(self):
        return {"fc1_weight": self.fc1.weight, "fc1_bias": self.fc1.bias,
                "fc2_weight": self.fc2.weight, "fc2_bias": self.fc2.bias}


class TorchConvBn(torch.nn.Module):
    def __init__(self, size=6):
        super().__init__()
        self.conv = torch.nn.Conv2d(2, 3, 3)
        self.bn = torch.nn.BatchNorm2d(3, eps=1e-5)
        self.fc = torch.nn.Linear(3 * ((size - 2) // 2) ** 2, 4)
        self.batch_stats = []

    def forward(self, x):
        h = self.conv(x)
        self.batch_stats.append((h.mean((0, 2, 3)).detach().double().numpy(),
                                 h.var((0, 2, 3), unbiased=False).detach().double().numpy()))
        h = torch.relu(self.bn(h))
        h = torch.nn.functional.max_pool2d(h, 2)
        return self.fc(h.flatten(1))

    def named(self):
        return {"conv_weight": self.conv.weight, "conv_bias": self.conv.bias,
                "bn_gamma": self.bn.weight, "bn_beta": self.bn.bias,
                "fc_weight": self.fc.weight, "fc_bias": self.fc.bias}


class MXNetRule:
    """MXNet's Adam / RMSProp update on torch's autograd gradients, where
    torch.optim places epsilon differently (MXNet: w -= lr sqrt(1 - b2^t) /
    (1 - b1^t) m / (sqrt(v) + eps) and w -= lr g / sqrt(n + eps))."""

    def __init__(self, name, params, wd):
        self.name, self.params, self.wd, self.t = name, params, wd, 0
        self.state = [(torch.zeros_like(p), torch.zeros_like(p)) for p in params]

    def zero_grad(self):
        for p in self.params:
            p.grad = None

    @torch.no_grad()
    def step(self):
        self.t += 1
        for p, (a, b) in zip(self.params, self.state):
            g = p.grad.double() + self.wd * p.double()
            if self.name == "adam":
                a.copy_(0.9 * a.double() + 0.1 * g)
                b.copy_(0.999 * b.double() + 0.001 * g * g)
                lr_t = LR * (1 - 0.999 ** self.t) ** 0.5 / (1 - 0.9 ** self.t)
                p.sub_((lr_t * a.double() / (b.double().sqrt() + 1e-8)).float())
            else:
                a.copy_(0.9 * a.double() + 0.1 * g * g)
                p.sub_((LR * g / (a.double() + 1e-8).sqrt()).float())


def torch_optimizer(name, params, wd):
    if name == "sgd":
        return torch.optim.SGD(params, lr=LR, weight_decay=wd)
    if name == "momentum":  # MXNet: m = 0.9 m - lr g; w += m (= torch's form)
        return torch.optim.SGD(params, lr=LR, momentum=0.9, weight_decay=wd)
    return MXNetRule(name, params, wd)


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        sys.exit("FAILED: %s\n%s%s" % (" ".join(cmd), r.stdout, r.stderr))
    return r.stdout


def torch_loss(loss, out, y):
    """The summed loss whose gradient the head --loss attaches gives
    (MXNet's regression heads divide by the outputs per sample)."""
    if loss == "softmax-ce":
        return torch.nn.functional.cross_entropy(out, y.long(), reduction="sum")
    per_sample = out[0].numel()
    if loss == "l2":
        return ((out - y) ** 2).sum() / 2 / per_sample
    if loss == "l1":
        return (out - y).abs().sum() / per_sample
    return torch.nn.functional.binary_cross_entropy_with_logits(
        out, y, reduction="sum") / per_sample


def write_symbol(d, nodes):
    """d/symbol.json: MXNet symbol JSON of `nodes`, the last one the head."""
    graph = {"nodes": nodes, "arg_nodes": [i for i, n in enumerate(nodes) if n["op"] == "null"],
             "heads": [[len(nodes) - 1, 0, 0]], "attrs": {"mxnet_version": ["int", 10900]}}
    with open(os.path.join(d, "symbol.json"), "w") as f:
        json.dump(graph, f)


def check(mxc, mxrun, work, model_name, make_graph, torch_model, optimizer, wd,
          loss=None, layout=None):
    rng = np.random.default_rng(7)
    case = "%s_%s_wd%g" % (model_name, optimizer, wd) + ("_" + loss if loss else "")
    case += "_" + layout if layout else ""
    d = os.path.join(work, case)
    os.makedirs(d, exist_ok=True)
    nodes, dshape = make_graph()
    batch = dshape[0]
    write_symbol(d, nodes)

    torch.manual_seed(3)
    model = torch_model()
    named = model.named()
    arrays = [("arg:" + k, v.detach().numpy().astype(np.float32)) for k, v in named.items()]
    if isinstance(model, TorchConvBn):
        mean = rng.normal(0, 0.1, 3).astype(np.float32)
        var = rng.uniform(0.5, 1.5, 3).astype(np.float32)
        arrays += [("aux:bn_moving_mean", mean), ("aux:bn_moving_var", var)]
    with open(os.path.join(d, "init.params"), "wb") as f:
        f.write(params_bytes(arrays))

    x = rng.normal(0, 1, dshape).astype(np.float32)
    y = rng.integers(0, 4, batch).astype(np.float32)
    if loss in ("l2", "l1"):
        y = rng.normal(0, 1, (batch, 5)).astype(np.float32)
    elif loss == "sigmoid-bce":
        y = rng.integers(0, 2, (batch, 5)).astype(np.float32)
    lr = np.array(LR, dtype=np.float32)
    for name, a in (("x", x), ("y", y), ("lr", lr)):
        np.save(os.path.join(d, name + ".npy"), a)

    lib = os.path.join(d, "lib%s.so" % case)
    run([mxc, os.path.join(d, "symbol.json"), "--params", os.path.join(d, "init.params"),
         "--input", "data=" + "x".join(map(str, dshape)), "--train",
         "--optimizer", optimizer, "--wd", str(wd), "-o", lib]
        + (["--loss", loss] if loss else [])
        + (["--conv-layout", layout] if layout else []))
    out = os.path.join(d, "out.params")
    run([mxrun, lib, "--function", "train_step", "--steps", str(STEPS),
         "--input", "data=" + os.path.join(d, "x.npy"),
         "--input", "softmax_label=" + os.path.join(d, "y.npy"),
         "--input", "learning_rate=" + os.path.join(d, "lr.npy"),
         "--save-params", out])
    got = read_params(out)

    opt = torch_optimizer(optimizer, list(named.values()), wd)
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)
    model.train()
    for _ in range(STEPS):
        opt.zero_grad()
        (torch_loss(loss or "softmax-ce", model(xt), yt) / batch).backward()
        opt.step()
    worst = 0.0
    for k, v in named.items():
        want = v.detach().numpy()
        err = np.abs(got["arg:" + k] - want).max()
        worst = max(worst, err / (1e-5 + 1e-3 * np.abs(want).max()))
        if not np.allclose(got["arg:" + k], want, rtol=1e-3, atol=2e-5):
            sys.exit("FAIL %s: %s differs from PyTorch by %g" % (case, k, err))
    if isinstance(model, TorchConvBn):
        m, v = mean.astype(np.float64), var.astype(np.float64)
        for bm, bv in model.batch_stats:  # MXNet's momentum 0.9, biased variance
            m, v = 0.9 * m + 0.1 * bm, 0.9 * v + 0.1 * bv
        for k, want in (("aux:bn_moving_mean", m), ("aux:bn_moving_var", v)):
            if not np.allclose(got[k], want, rtol=1e-4, atol=1e-5):
                sys.exit("FAIL %s: %s is %s, expected %s" % (case, k, got[k], want))
    print("PASS %s (worst error %.2f of the tolerance)" % (case, worst))


def check_dropout(mxc, mxrun, work):
    """Dropout(p) -> FC 3 (zero weights) -> SoftmaxOutput on ones, label 0:
    grad's fc_weight_grad[1, i] = sum_b mask[b, i] / 3 (grad does not apply
    rescale_grad, which belongs to the optimizer step), so it
    shows how many of column i's 64 draws were kept (each kept one scaled
    by 1 / (1 - p)). About 1 - p of all must be kept, and grad (which does
    not advance the counter) must repeat its mask."""
    p, batch, width = 0.25, 64, 50
    d = os.path.join(work, "dropout")
    os.makedirs(d, exist_ok=True)
    # data * s (s = 1, a learned scale) -> Dropout: the dropout's input
    # carries a gradient, as inside a network.
    nodes = [node("null", "data", []), node("null", "scale", []),
             node("broadcast_mul", "scaled", [[0, 0, 0], [1, 0, 0]]),
             node("Dropout", "drop", [[2, 0, 0]], p=p),
             node("null", "fc_weight", []), node("null", "fc_bias", []),
             node("FullyConnected", "fc", [[3, 0, 0], [4, 0, 0], [5, 0, 0]], num_hidden=3),
             node("null", "softmax_label", []),
             node("SoftmaxOutput", "softmax", [[6, 0, 0], [7, 0, 0]])]
    write_symbol(d, nodes)
    with open(os.path.join(d, "init.params"), "wb") as f:
        f.write(params_bytes([("arg:scale", np.ones((1, width), np.float32)),
                              ("arg:fc_weight", np.zeros((3, width), np.float32)),
                              ("arg:fc_bias", np.zeros(3, np.float32))]))
    np.save(os.path.join(d, "x.npy"), np.ones((batch, width), np.float32))
    np.save(os.path.join(d, "y.npy"), np.zeros(batch, np.float32))
    lib = os.path.join(d, "libdropout.so")
    run([mxc, os.path.join(d, "symbol.json"), "--params", os.path.join(d, "init.params"),
         "--input", "data=%dx%d" % (batch, width), "--train", "-o", lib])
    grads = []
    for k in range(2):
        out = os.path.join(d, "out%d" % k)
        run([mxrun, lib, "--function", "grad", "--input", "data=" + os.path.join(d, "x.npy"),
             "--input", "softmax_label=" + os.path.join(d, "y.npy"), "--output-dir", out])
        grads.append(np.load(os.path.join(out, "fc_weight_grad.npy")))
    if not np.array_equal(grads[0], grads[1]):
        sys.exit("FAIL dropout: grad does not repeat its mask")
    kept = grads[0][1] * 3 * (1 - p)  # draws kept per column
    if np.abs(kept - np.round(kept)).max() > 1e-3:
        sys.exit("FAIL dropout: mask values are not 0 or 1/(1-p): %s" % kept)
    fraction = kept.sum() / (batch * width)
    if not 0.72 <= fraction <= 0.78:
        sys.exit("FAIL dropout: kept %.3f of the elements, expected about %.2f"
                 % (fraction, 1 - p))
    print("PASS dropout (kept %.3f, p = %.2f)" % (fraction, p))


def main():
    mxc, mxrun, work = sys.argv[1:4]
    check_dropout(mxc, mxrun, work)
    for optimizer in ("sgd", "momentum", "adam", "rmsprop"):
        check(mxc, mxrun, work, "mlp", mlp, TorchMlp, optimizer, 0.0)
    check(mxc, mxrun, work, "mlp", mlp, TorchMlp, "sgd", 0.01)
    check(mxc, mxrun, work, "mlp", mlp, TorchMlp, "adam", 0.01)
    check(mxc, mxrun, work, "convbn", conv_bn, TorchConvBn, "sgd", 0.0)
    check(mxc, mxrun, work, "convbn", conv_bn, TorchConvBn, "momentum", 0.001)
    for size in (5, 10):
        check(mxc, mxrun, work, "convbn%d" % size, lambda: conv_bn(size),
              lambda: TorchConvBn(size), "momentum", 0.0)
    for loss in ("softmax-ce", "l2", "l1", "sigmoid-bce"):
        check(mxc, mxrun, work, "mlp", mlp_logits, TorchMlp, "sgd", 0.0, loss)
    # The convolution nets again with every convolution and gradient
    # channels last (the NHWC gradient kernels).
    for layout in (None, "nhwc"):
        for batch in (BATCH, 1):
            check(mxc, mxrun, work, "convnet%d" % batch, lambda: conv_net(batch),
                  TorchConvNet, "sgd", 0.0, layout=layout)
        check(mxc, mxrun, work, "branchnet", branch_net, TorchBranchNet, "sgd", 0.0,
              layout=layout)
    check(mxc, mxrun, work, "convbn", conv_bn, TorchConvBn, "momentum", 0.001,
          layout="nhwc")


if __name__ == "__main__":
    main()
