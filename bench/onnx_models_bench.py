#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Inference latency of mxc against ONNX Runtime on the models of the ONNX operator work
(recurrent, segmentation, detection), in one interleaved run on the same seeded weights
and inputs, at 1 and 2 threads:

  lstm-b1, lstm-b16   test/models/make_rnn_lm.py's language model: embedding (1000 words,
                      128) -> 2-layer LSTM (hidden 256) -> linear over the vocabulary,
                      sequence 64, batch 1 or 16
  gru-b1, gru-b16     the same with a 2-layer GRU
  fcn                 torchvision's fcn_resnet50 (21 classes), 1x3x224x224
  lraspp              torchvision's lraspp_mobilenet_v3_large, 1x3x224x224
  ssdlite             torchvision's ssdlite320_mobilenet_v3_large, 1x3x320x320, its
                      post-processing (score filter, TopK, NMS) in the graph

Weights are seeded (no download; test/models/make_torchvision_onnx.py's seeded BatchNorm
statistics, measured on seeded images for the detector) and exported by torch.onnx.export with static shapes. mxc compiles each export
(`mxc model.onnx`) and `mxrun --bench` times it; ONNX Runtime runs the same .onnx through
bench/ort_run.js (npm onnxruntime-node in bench/.peers, installed on first use). Before
timing, both outputs are compared with PyTorch's (max |diff| / max |reference|, at most
--tolerance); a row that mxc cannot compile or gets wrong says so and is not timed for
mxc. Every round times both peers on every row and thread count in turn; each time is the
median of the rounds' medians. Prints Markdown.

  /usr/bin/python3 bench/onnx_models_bench.py [--rows lstm-b1,...] [--threads 1,2]
      [--rounds 5] [--runs 5] [--work DIR]
"""
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "test", "models"))
import bench_util  # noqa: E402  (sets OpenBLAS up before torch loads)

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
import numpy as np  # noqa: E402
import torch  # noqa: E402

import compare_detections  # noqa: E402
import make_rnn_lm  # noqa: E402
import make_torchvision_onnx  # noqa: E402

ROWS = {  # key: (title, kind, batch)
    "lstm-b1": ("LSTM language model, batch 1, sequence 64", "lstm", 1),
    "lstm-b16": ("LSTM language model, batch 16, sequence 64", "lstm", 16),
    "gru-b1": ("GRU language model, batch 1, sequence 64", "gru", 1),
    "gru-b16": ("GRU language model, batch 16, sequence 64", "gru", 16),
    "fcn": ("fcn_resnet50, 224x224", "fcn_resnet50", 1),
    "lraspp": ("lraspp_mobilenet_v3_large, 224x224", "lraspp_mobilenet_v3_large", 1),
    "ssdlite": ("ssdlite320_mobilenet_v3_large, 320x320", "ssdlite320_mobilenet_v3_large", 1),
}
PEERS = ("mxc", "ORT")
SEQ = 64


def log(message):
    print(message, file=sys.stderr, flush=True)


class Row:
    def __init__(self, key, work):
        self.key = key
        self.title, kind, batch = ROWS[key]
        self.onnx = os.path.join(work, key + ".onnx")
        self.lib = os.path.join(work, f"lib{key}.so")
        g = torch.Generator().manual_seed(1)
        if kind in ("lstm", "gru"):
            self.model = make_rnn_lm.make(kind)
            self.names, self.outputs = ["tokens"], ["logits"]
            self.args = [torch.randint(0, 1000, (SEQ, batch), generator=g)]
        elif kind in make_torchvision_onnx.DETECTION:
            self.model = make_torchvision_onnx.make_detector(kind)
            self.names, self.outputs = ["image"], list(compare_detections.NAMES)
            self.args = [torch.rand(3, 320, 320, generator=g)]
        else:
            self.model = make_torchvision_onnx.make_model(kind)
            self.names, self.outputs = ["input"], ["out"]
            self.args = [torch.randn(1, 3, 224, 224, generator=g)]
        self.npys = [os.path.join(work, f"{key}_{n}.npy") for n in self.names]
        for path, x in zip(self.npys, self.args):
            np.save(path, x.numpy())
        self.errors, self.diffs, self.times = {}, {}, {}
        self.compile_s = None

    def reference(self):
        with torch.no_grad():
            if self.key == "ssdlite":
                y = self.model([self.args[0]])[0]
                return [y[k].numpy() for k in self.outputs]
            y = self.model(*self.args)
        return [(y["out"] if isinstance(y, dict) else y).numpy()]

    def export(self):
        model, args = self.model, tuple(self.args)
        if self.key == "ssdlite":
            args = ([self.args[0]],)
        torch.onnx.export(model, args, self.onnx, opset_version=14,
                          input_names=self.names, output_names=self.outputs)

    def inputs(self):
        return [a for n, p in zip(self.names, self.npys) for a in ("--input", f"{n}={p}")]


class Peers:
    def __init__(self, args):
        self.args = args
        self.env = dict(os.environ, NODE_PATH=os.path.join(HERE, ".peers", "node_modules"))
        self.ort_version = None

    def compile(self, row):
        start = time.perf_counter()
        r = subprocess.run([self.args.mxc, row.onnx, "-o", row.lib, "--quiet"],
                           capture_output=True, text=True)
        if r.returncode != 0:
            row.errors["mxc"] = "compile failed: " + bench_util.first_lines(r)
            return
        row.compile_s = time.perf_counter() - start

    def measure(self, peer, row, threads, warmup, runs, out_dir=None):
        if peer == "mxc":
            cmd = [self.args.mxrun, row.lib, "--json", "--threads", str(threads),
                   "--warmup", str(warmup), "--bench", str(runs)]
            env = None
        else:
            cmd = ["node", os.path.join(HERE, "ort_run.js"), row.onnx, "--threads",
                   str(threads), "--warmup", str(warmup), "--runs", str(runs)]
            env = self.env
        cmd += row.inputs()
        if out_dir:
            cmd += ["--output-dir", out_dir]
        r = subprocess.run(cmd, capture_output=True, text=True, env=env)
        if r.returncode != 0:
            raise RuntimeError(bench_util.first_lines(r))
        out = json.loads(r.stdout)
        if peer == "ORT":
            self.ort_version = out["version"]
            return out["median_ms"]
        return out["bench"]["median_ms"]

    def check(self, row, tolerance):
        refs = row.reference()
        for peer in PEERS:
            if peer in row.errors:
                continue
            out_dir = os.path.join(self.args.work, "out", row.key, peer)
            try:
                self.measure(peer, row, 1, 0, 1, out_dir)
            except RuntimeError as e:
                row.errors[peer] = f"run failed: {e}"
                continue
            if row.key == "ssdlite":  # near-tied scores may swap places
                ours = [np.load(os.path.join(out_dir, n + ".npy")) for n in row.outputs]
                try:
                    row.diffs[peer] = max(compare_detections.match(
                        ours, refs, tolerance)[:2])
                except ValueError as e:
                    row.errors[peer] = f"output differs from PyTorch's: {e}"
                continue
            worst = 0.0
            for name, ref in zip(row.outputs, refs):
                out = np.load(os.path.join(out_dir, name + ".npy"))
                ref = ref.astype(np.float64)
                if out.shape != ref.shape:
                    worst = float("inf")
                elif ref.size:
                    worst = max(worst, float(np.abs(out - ref).max() /
                                             max(np.abs(ref).max(), 1e-30)))
            row.diffs[peer] = worst
            if not worst <= tolerance:
                row.errors[peer] = f"output differs from PyTorch's by {worst:.2g}"


def table(args, rows):
    out = ["| model | threads | mxc (ms) | ONNX Runtime (ms) | mxc / ORT |",
           "|---|---:|---:|---:|---:|"]
    for row in rows:
        for t in args.threads:
            ms = {p: float(np.median(row.times[(p, t)])) for p in PEERS
                  if row.times.get((p, t))}
            cells = [f"{ms[p]:.2f}" if p in ms else row.errors.get(p, "–") for p in PEERS]
            ratio = f"{ms['mxc'] / ms['ORT']:.2f}" if len(ms) == 2 else "–"
            out.append(f"| {row.title} | {t} | " + " | ".join(cells) + f" | {ratio} |")
    out += ["", "| model | mxc compile (s) | mxc vs PyTorch | ORT vs PyTorch |",
            "|---|---:|---:|---:|"]
    for row in rows:
        diff = lambda p: f"{row.diffs[p]:.1e}" if p in row.diffs else "–"
        compile_s = f"{row.compile_s:.1f}" if row.compile_s else "–"
        out.append(f"| {row.title} | {compile_s} | {diff('mxc')} | {diff('ORT')} |")
    return "\n".join(out)


def main():
    args = bench_util.rounds_args(__doc__, ROWS)
    keys = args.rows
    torch.set_num_threads(1)
    load = os.getloadavg()[0]
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="mxc-onnx-models-bench-") as tmp:
        args.work = args.work or tmp
        os.makedirs(args.work, exist_ok=True)
        bench_util.ensure_onnxruntime_node(os.path.join(HERE, ".peers"))
        peers = Peers(args)
        rows = [Row(key, args.work) for key in keys]
        bench_util.prepare_rows(rows, peers, args.tolerance, log)
        bench_util.time_rounds(args, rows, peers, PEERS, log)
    node = subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip()
    print(f"{bench_util.cpu_name()} ({os.cpu_count()} CPUs); "
          f"{bench_util.mxc_version(args.mxc)}; onnxruntime-node "
          f"{peers.ort_version or '?'} (Node.js {node}). Float32; each time the median of "
          f"{args.rounds} interleaved rounds' medians of {args.runs} runs (after "
          f"{args.warmup} untimed); a ratio below 1 means mxc is faster. Load average "
          f"{load:.1f} at the start, {os.getloadavg()[0]:.1f} at the end.\n")
    print(table(args, rows))
    log(f"done in {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
