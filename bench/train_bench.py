#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Training throughput: images/s of one SGD step of a network compiled with
`mxc --train` (its `train_step`, timed by `mxrun --bench`) against PyTorch's
eager step on the same network, weights, batch and thread count (forward,
summed cross entropy / batch, backward, torch.optim.SGD step), in one run.

Every network is an MXNet symbol (examples/models, and the CIFAR ResNet-20
of the shared test data with `--loss softmax-ce`, as Gluon exports end at
their logits). PyTorch runs the same graph through a module that executes
the symbol's nodes with torch operators, on the parameters mxc initialized
(read back with `mxrun --save-params`). Before timing, one step from the
same parameters and batch must give mxc's updated parameters within 10x of
PyTorch's float32 error against its float64 step (or 1e-4 of the tensor's
largest magnitude, or 1e-7), or the row fails.

The runs come in interleaved rounds (mxc, then PyTorch, for every row and
thread count, then the next round); each time is the median of the rounds'
medians. Prints a Markdown table:

    /usr/bin/python3 bench/train_bench.py [--rows lenet,mlp,...] [--threads 1,2]
        [--rounds 3] [--mxc build/bin/mxc] [--mxrun build/bin/mxrun]
"""
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

import bench_util  # noqa: F401  (names OpenBLAS's kernels before torch loads it)
from bench_util import ROOT, set_openblas_threads

import numpy as np
import torch
import torch.nn.functional as F

from perf_models import read_mxnet_params

TESTDATA = os.path.join(ROOT, "..", "shared", "testdata", "mxnet")
MODELS = os.path.join(ROOT, "examples", "models")
LR = 0.01

# key: (title, symbol, params or None, data shape without the batch, batch,
#       mxc options)
ROWS = {
    "lenet": ("LeNet", os.path.join(MODELS, "lenet-fashion.json"), None, (1, 28, 28), 64, []),
    "mlp": ("MLP", os.path.join(MODELS, "mlp-fashion.json"), None, (784,), 64, []),
    "resnet20": ("CIFAR ResNet-20 v1",
                 os.path.join(TESTDATA, "cifar_resnet20_v1-symbol.json"),
                 os.path.join(TESTDATA, "cifar_resnet20_v1-0000.params"),
                 (3, 32, 32), 64, ["--loss", "softmax-ce"]),
    "resnet18": ("ResNet-18 v1 224x224", os.path.join(MODELS, "resnet18_v1.json"), None,
                 (3, 224, 224), 32, []),
    "inception": ("Inception-BN 224x224", os.path.join(MODELS, "inception-bn.json"), None,
                  (3, 224, 224), 32, []),
}
DEFAULT_ROWS = "lenet,mlp,resnet20,resnet18,inception"


def log(message):
    print(message, file=sys.stderr, flush=True)


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        sys.exit("train_bench: failed (%d): %s\n%s" % (r.returncode, " ".join(cmd), r.stderr))
    return r.stdout


def tuple_attr(text):
    return tuple(int(v) for v in text.strip("()[] ").split(",") if v.strip())


def truthy(text):
    return str(text).lower() in ("true", "1")


class SymbolNet(torch.nn.Module):
    """An MXNet symbol's nodes run with torch operators, up to the logits
    (the SoftmaxOutput head's input, or the last node): the operators the
    networks of ROWS use, with MXNet's semantics (pooling conventions,
    BatchNorm's fix_gamma and moving statistics)."""

    def __init__(self, graph, arrays):
        super().__init__()
        self.nodes = graph["nodes"]
        self.head = graph["heads"][0][0]
        self.learned = torch.nn.ParameterDict()
        self.aux = {}
        aux_names = set()
        for n in self.nodes:
            if n["op"] == "BatchNorm":
                aux_names.update(self.nodes[i[0]]["name"] for i in n["inputs"][3:5])
        for name, a in arrays.items():
            t = torch.from_numpy(np.array(a, np.float32))
            if name in aux_names:
                self.aux[name] = t.clone()
            else:
                self.learned[name.replace(".", "_")] = torch.nn.Parameter(t.clone())

    def param(self, name):
        return self.learned[name.replace(".", "_")]

    def forward(self, data):
        values = {}
        for i, n in enumerate(self.nodes):
            op, a = n["op"], n.get("attrs", {})
            ins = [values.get(j[0]) for j in n["inputs"]]
            if op == "null":
                name = n["name"]
                if name == "data":
                    values[i] = data
                elif name in self.aux:
                    values[i] = self.aux[name]
                elif name.replace(".", "_") in self.learned:
                    values[i] = self.param(name)
                continue
            if op == "SoftmaxOutput":
                return ins[0]
            values[i] = self.apply(op, a, ins)
            if i == self.head:
                return values[i]
        raise ValueError("the graph's head was not reached")

    def apply(self, op, a, ins):
        if op == "Convolution":
            bias = None if truthy(a.get("no_bias", "False")) else ins[2]
            return F.conv2d(ins[0], ins[1], bias, tuple_attr(a.get("stride", "(1, 1)")),
                            tuple_attr(a.get("pad", "(0, 0)")),
                            tuple_attr(a.get("dilate", "(1, 1)")), int(a.get("num_group", 1)))
        if op == "BatchNorm":
            x, gamma, beta, mean, var = ins
            if truthy(a.get("fix_gamma", "True")):
                gamma = torch.ones_like(beta)
            return F.batch_norm(x, mean, var, gamma, beta, training=True,
                                momentum=1 - float(a.get("momentum", 0.9)),
                                eps=float(a.get("eps", 1e-3)))
        if op == "Activation":
            return {"relu": torch.relu, "tanh": torch.tanh,
                    "sigmoid": torch.sigmoid}[a["act_type"]](ins[0])
        if op == "Pooling":
            return self.pool(a, ins[0])
        if op in ("elemwise_add", "_plus", "broadcast_add"):
            return ins[0] + ins[1]
        if op in ("_copy", "identity"):
            return ins[0]
        if op == "Concat":
            return torch.cat(ins, int(a.get("dim", 1)))
        if op == "Flatten":
            return ins[0].flatten(1)
        if op == "FullyConnected":
            x = ins[0].flatten(1) if truthy(a.get("flatten", "True")) else ins[0]
            bias = None if truthy(a.get("no_bias", "False")) else ins[2]
            return F.linear(x, ins[1], bias)
        raise ValueError("SymbolNet: no torch operator for '%s'" % op)

    @staticmethod
    def pool(a, x):
        kind = a.get("pool_type", "max")
        if truthy(a.get("global_pool", "False")):
            return x.amax((2, 3), keepdim=True) if kind == "max" else x.mean((2, 3), keepdim=True)
        kernel = tuple_attr(a["kernel"])
        stride = tuple_attr(a.get("stride", "(1, 1)"))
        pad = tuple_attr(a.get("pad", "(0, 0)"))
        ceil = a.get("pooling_convention", "valid") == "full"
        if kind == "max":
            return F.max_pool2d(x, kernel, stride, pad, ceil_mode=ceil)
        return F.avg_pool2d(x, kernel, stride, pad, ceil_mode=ceil,
                            count_include_pad=truthy(a.get("count_include_pad", "True")))


class Row:
    """One network: its compiled library, batch files and PyTorch twin."""

    def __init__(self, key, args, work):
        self.key = key
        self.title, symbol, params, shape, self.batch, options = ROWS[key]
        self.dir = os.path.join(work, key)
        os.makedirs(self.dir)
        self.lib = os.path.join(self.dir, "lib%s.so" % key)
        dims = "x".join(str(d) for d in (self.batch,) + shape)
        log("compiling %s ..." % self.title)
        cmd = [args.mxc, symbol, "--input", "data=" + dims, "--train", "-o", self.lib] + options
        if params:
            cmd += ["--params", params]
        start = time.perf_counter()
        run(cmd)
        self.compile_s = time.perf_counter() - start
        rng = np.random.default_rng(0)
        self.x = rng.standard_normal((self.batch,) + shape, dtype=np.float32)
        self.y = rng.integers(0, 10, self.batch).astype(np.float32)
        self.inputs = []
        for name, value in (("data", self.x), ("softmax_label", self.y),
                            ("learning_rate", np.array(LR, np.float32))):
            path = os.path.join(self.dir, name + ".npy")
            np.save(path, value)
            self.inputs += ["--input", "%s=%s" % (name, path)]
        self.mxrun = args.mxrun
        init = os.path.join(self.dir, "init.params")
        run([args.mxrun, self.lib, "--function", "forward", "--input", self.inputs[1],
             "--save-params", init])
        self.init = read_mxnet_params(init)
        with open(symbol) as f:
            self.graph = json.load(f)
        self.times = {}  # (peer, threads) -> [round medians]
        self.torch_state = {}  # threads -> (model, optimizer), warmed up

    def torch_model(self):
        return SymbolNet(self.graph, self.init)

    def torch_steps(self, model, opt, steps):
        x, y = torch.from_numpy(self.x), torch.from_numpy(self.y).long()
        times = []
        for _ in range(steps):
            start = time.perf_counter()
            opt.zero_grad()
            loss = F.cross_entropy(model(x), y, reduction="sum") / self.batch
            loss.backward()
            opt.step()
            times.append((time.perf_counter() - start) * 1e3)
        return times

    def check(self):
        """One step of each from the same parameters: mxc's updated
        parameters must be as close to PyTorch's float64 step as PyTorch's
        own float32 step is (within 10x its error), or within 1e-4 of the
        tensor's largest magnitude, or 1e-7. (A parameter that starts at
        zero, a BatchNorm beta, is its one update: a sum of terms that
        cancel, whose float32 rounding PyTorch itself gets wrong by
        percents; a convolution's bias before a BatchNorm has a zero
        gradient, which float32 leaves at rounding noise.)"""
        out = os.path.join(self.dir, "step.params")
        run([self.mxrun, self.lib, "--function", "train_step", "--steps", "1",
             "--save-params", out] + self.inputs)
        got = read_mxnet_params(out)
        torch.set_num_threads(2)
        steps = {}
        for dtype in (torch.float64, torch.float32):
            model = self.torch_model().to(dtype)
            model.aux = {k: v.to(dtype) for k, v in model.aux.items()}
            x = torch.from_numpy(self.x).to(dtype)
            opt = torch.optim.SGD(model.parameters(), lr=LR)
            opt.zero_grad()
            F.cross_entropy(model(x), torch.from_numpy(self.y).long(),
                            reduction="sum").div(self.batch).backward()
            opt.step()
            steps[dtype] = {k: p.detach().double().numpy() for k, p in model.learned.items()}
        self.agreement = 0.0  # worst mxc error / allowed error
        for name, want in steps[torch.float64].items():
            mxc_name = next(k for k in got if k.replace(".", "_") == name)
            err = float(np.abs(got[mxc_name] - want).max())
            torch_err = float(np.abs(steps[torch.float32][name] - want).max())
            allowed = max(1e-4 * float(np.abs(want).max()), 10 * torch_err, 1e-7)
            self.agreement = max(self.agreement, err / allowed)
            if err > allowed:
                sys.exit("train_bench: %s: after one step, %s is %.3g from PyTorch's float64 "
                         "step (PyTorch's float32 step: %.3g)" % (self.title, mxc_name, err,
                                                                 torch_err))

    def time_mxc(self, threads, runs):
        out = run([self.mxrun, self.lib, "--function", "train_step", "--threads",
                   str(threads), "--bench", str(runs), "--json"] + self.inputs)
        return json.loads(out)["bench"]["median_ms"]

    def time_torch(self, threads, runs):
        """The median of `runs` steps; the model and optimizer of a thread
        count are made and warmed up (3 steps, as mxrun's --bench) once
        and kept across rounds, so that short rounds time a steady state."""
        torch.set_num_threads(threads)
        set_openblas_threads(threads)
        if threads not in self.torch_state:
            model = self.torch_model()
            opt = torch.optim.SGD(model.parameters(), lr=LR)
            self.torch_steps(model, opt, 3)
            self.torch_state[threads] = (model, opt)
        model, opt = self.torch_state[threads]
        return statistics.median(self.torch_steps(model, opt, runs))


def main():
    p = bench_util.tool_parser(__doc__)
    p.add_argument("--rows", default=DEFAULT_ROWS,
                   help="comma-separated, from: " + ", ".join(ROWS))
    p.add_argument("--threads", default="1,2")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--seconds", type=float, default=1.5,
                   help="about how long each peer runs per round (default 1.5)")
    a = p.parse_args()
    keys = a.rows.split(",")
    for k in keys:
        if k not in ROWS:
            p.error("unknown row '%s' (rows: %s)" % (k, ", ".join(ROWS)))
    threads = [int(t) for t in a.threads.split(",")]
    torch.set_num_interop_threads(1)
    with tempfile.TemporaryDirectory() as work:
        rows = [Row(k, a, work) for k in keys]
        for row in rows:
            log("checking %s against PyTorch ..." % row.title)
            row.check()
        # Runs per round: about --seconds of a peer's step, at least 3.
        runs = {}
        for row in rows:
            first = row.time_mxc(1, 1)
            runs[row.key] = max(3, int(a.seconds * 1e3 / max(first, 1e-3)))
        for r in range(a.rounds):
            for row in rows:
                for t in threads:
                    log("round %d/%d: %s, %d thread(s) ..." % (r + 1, a.rounds, row.title, t))
                    n = runs[row.key]
                    row.times.setdefault(("mxc", t), []).append(row.time_mxc(t, n))
                    row.times.setdefault(("torch", t), []).append(row.time_torch(t, n))
                    # PyTorch's and OpenBLAS's threads spin a while after
                    # their last call; let them sleep before mxrun starts.
                    time.sleep(0.5)
    cpu = "unknown CPU"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    print("Training step, SGD (lr %g), medians of %d interleaved rounds (%s; PyTorch %s; "
          "%s, %s, %d CPUs):\n" % (LR, a.rounds, bench_util.mxc_version(a.mxc),
                                    torch.__version__, cpu, platform.machine(), os.cpu_count()))
    print("| model | batch | threads | mxc images/s | PyTorch images/s | mxc / PyTorch time |")
    print("|---|---:|---:|---:|---:|---:|")
    for row in rows:
        for t in threads:
            m = statistics.median(row.times[("mxc", t)])
            q = statistics.median(row.times[("torch", t)])
            print("| %s | %d | %d | %.0f | %.0f | %.2f |"
                  % (row.title, row.batch, t, row.batch * 1e3 / m, row.batch * 1e3 / q, m / q))
    print("\nOne step's parameters agreed with PyTorch's float64 step within %.2f of the "
          "allowed error (worst row; allowed: 10x PyTorch float32's error, 1e-4 of the "
          "tensor's magnitude or 1e-7); compile times: %s." % (
              max(r.agreement for r in rows),
              ", ".join("%s %.1f s" % (r.title, r.compile_s) for r in rows)))


if __name__ == "__main__":
    main()
