#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Transformer inference latency of mxc against ONNX Runtime and PyTorch, in
one interleaved run on the same seeded weights and inputs, at 1 and 2 threads:

  encoder128, encoder512  a BERT-base-shaped encoder: torch's own
                          nn.TransformerEncoder (12 layers, hidden 768, 12
                          heads, FF 3072, GELU, post-norm, batch_first),
                          batch 1, sequence 128 or 512
  gpt128                  a GPT-2-small-shaped decoder (12 layers, hidden
                          768, 12 heads, vocabulary 50257, 1024 learned
                          positions, causal mask from Trilu, LayerNorm, tanh
                          GELU, head tied to the token embedding) on a
                          128-token prompt, batch 1
  decode512               the same decoder's next-token step with a key/value
                          cache of 512 positions (test/models/
                          make_gpt_decode.py's step: past and present keys
                          and values per layer, as Hugging Face-style exports
                          have them), compiled once with its cache axis
                          dynamic; beside it the machine's read bandwidth
                          at each thread count (bench/bandwidth.c: threads
                          summing their parts of 1 GiB) and what it allows:
                          the weights' bytes over the bandwidth per token
  decode512-inplace       the same step, mxc's library compiled with
                          --kv-cache=in-place (each cache one buffer of 1024
                          positions that the step appends to, 512 filled;
                          the peers run the export as it is, as in decode512)

The models are test/models/make_transformer_onnx.py's, at these sizes, built
here with torch.manual_seed and exported by torch.onnx.export (opset 14) with
static shapes. The decoder takes its token ids as float32 and casts them to
int64 (its first node) because bench/ort_run.js reads float32 .npy files only.

mxc compiles each export once (--input NAME=SHAPE) and `mxrun --bench` times
it; ONNX Runtime runs the same .onnx through bench/ort_run.js (npm
onnxruntime-node in bench/.peers); PyTorch runs the module eagerly in this
process under torch.no_grad() (for the encoder that is torch's fused
encoder-layer fast path). Before timing, mxc's and ORT's outputs are compared
with PyTorch's (max |diff| / max |reference|, at most --tolerance); a row whose
mxc compile or check fails says so in its row and is not timed for mxc.
Every round times every peer of every row and thread count in turn; each time
is the median of the rounds' medians. Prints Markdown.

  /usr/bin/python3 bench/transformer_bench.py [--rows encoder128,encoder512,gpt128]
      [--threads 1,2] [--rounds 5] [--runs 5] [--work DIR]
"""
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_util  # noqa: E402  (sets OpenBLAS up before torch loads)

# Debian's torch runs its own loops on OpenMP and its matrix products on
# OpenBLAS's threads; OpenMP's workers spin after each loop and starve
# OpenBLAS's (the encoder at 2 threads took twice as long as at 1). Neither
# mxrun nor ORT uses OpenMP.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
import numpy as np  # noqa: E402
import torch  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "test",
                                "models"))
import make_gpt_decode  # noqa: E402
import make_transformer_onnx  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
OPSET = 14
D, HEADS, LAYERS, FF = 768, 12, 12, 3072
VOCAB, MAX_POSITIONS = 50257, 1024
ROWS = {"encoder128": ("encoder", 128), "encoder512": ("encoder", 512),
        "gpt128": ("gpt", 128), "decode512": ("decode", 512),
        "decode512-inplace": ("decode", 512)}
IN_PLACE = {"decode512-inplace"}
PEERS = ["mxc", "ORT", "PyTorch"]


def log(message):
    print(message, file=sys.stderr, flush=True)


class Gpt(make_transformer_onnx.Gpt):
    """test/models/make_transformer_onnx.py's GPT-2-style decoder at GPT-2
    small's sizes, its ids float32 (bench/ort_run.js reads float32 .npy)."""

    def __init__(self):
        super().__init__(D, HEADS, LAYERS, VOCAB, MAX_POSITIONS)

    def forward(self, ids):
        return super().forward(ids.long())


class GptStep(make_gpt_decode.GptStep):
    """make_gpt_decode.py's cached step of a Gpt, its ids and positions float32."""

    def forward(self, ids, positions, *past):
        return super().forward(ids.long(), positions.long(), *past)


def bandwidth_probe(work):
    """bench/bandwidth.c compiled into `work`: threads summing their parts of
    1 GiB, the machine's read bandwidth. (A NumPy sum reads at most 14 GB/s
    on one core of the 2-core AMD EPYC VM where a token's matrix products
    stream 18-20: it measured the sum, not the memory.)"""
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("clang-22")
    if not cc:
        sys.exit("transformer_bench: no C compiler for bench/bandwidth.c (set CC)")
    exe = os.path.join(work, "bandwidth")
    r = subprocess.run([cc, "-O3", "-march=native", "-pthread", "-o", exe,
                        os.path.join(HERE, "bandwidth.c")],
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("transformer_bench: cannot compile bench/bandwidth.c: " +
                 bench_util.first_lines(r))
    return exe


def read_bandwidth_gbs(probe, threads):
    """The read bandwidth in GB/s at each of `threads` (a dict), best of 5."""
    gbs = {}
    for t in threads:
        r = subprocess.run([probe, str(t)], capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit("transformer_bench: bench/bandwidth.c failed: " + bench_util.first_lines(r))
        gbs[t] = json.loads(r.stdout)["gbs"]
    return gbs


def encoder():
    layer = torch.nn.TransformerEncoderLayer(D, HEADS, dim_feedforward=FF, dropout=0.0,
                                             activation="gelu", batch_first=True)
    model = torch.nn.TransformerEncoder(layer, num_layers=LAYERS)
    # TransformerEncoder deep-copies one layer, and the export keeps one copy of
    # equal weights: ORT would read 28 MB of weights twelve times where mxc
    # reads 340 MB once. Each layer gets weights of its own.
    for m in model.modules():
        if hasattr(m, "_reset_parameters"):
            m._reset_parameters()
        elif isinstance(m, torch.nn.Linear):
            m.reset_parameters()
    return model


class Row:
    """One row: the PyTorch module, its input, its export and mxc library."""

    def __init__(self, key, models, work):
        kind, self.seq = ROWS[key]
        self.key, self.model = key, models[kind]
        g = torch.Generator().manual_seed(1)
        self.kind = kind
        if kind == "encoder":
            self.title = f"BERT-base-shaped encoder, seq {self.seq}"
            self.names, self.output = ["x"], "y"
            self.args = [torch.randn(1, self.seq, D, generator=g)]
        elif kind == "gpt":
            self.title = f"GPT-2-small-shaped decoder, {self.seq}-token prompt"
            self.names, self.output = ["ids"], "logits"
            self.args = [torch.randint(0, VOCAB, (1, self.seq), generator=g).float()]
        else:
            self.title = f"GPT-2-small-shaped decoder, next token after {self.seq} cached"
            past_names, self.present = make_gpt_decode.names(LAYERS)
            self.names, self.output = ["ids", "positions", *past_names], "logits"
            self.args = [torch.randint(0, VOCAB, (1, 1), generator=g).float(),
                         torch.tensor([[float(self.seq)]])]
            self.args += [torch.randn(1, HEADS, self.seq, D // HEADS, generator=g)
                          for _ in past_names]
        self.npys = [os.path.join(work, f"{key}_{n}.npy") for n in self.names]
        for path, x in zip(self.npys, self.args):
            np.save(path, x.numpy())
        # mxc's inputs when its caches are in place: the same past at the
        # start of buffers of MAX_POSITIONS, and the filled length.
        self.in_place = key in IN_PLACE
        self.mxc_inputs = self.npys_args(self.names, self.npys)
        if self.in_place:
            self.title += ", mxc's cache in place"
            names = self.names + ["past_length"]
            paths = [os.path.join(work, f"{key}_mxc_{n}.npy") for n in names]
            for path, x in zip(paths[:2], self.args[:2]):
                np.save(path, x.numpy())
            for path, x in zip(paths[2:], self.args[2:]):
                cache = np.zeros((1, HEADS, MAX_POSITIONS, D // HEADS), np.float32)
                cache[:, :, :self.seq] = x.numpy()
                np.save(path, cache)
            np.save(paths[-1], np.array(self.seq, np.int64))
            self.mxc_inputs = self.npys_args(names, paths)
        self.onnx = os.path.join(work, key + ".onnx")
        self.lib = os.path.join(work, f"lib{key}.so")
        self.shape = ("x".join(map(str, self.args[0].shape)) if kind != "decode" else
                      f"cache axis dynamic (--dim past=0..{MAX_POSITIONS}"
                      f"{' --kv-cache=in-place' if key in IN_PLACE else ''})")
        self.errors = {}   # peer -> what failed (the cell shows it)
        self.diffs = {}    # peer -> scaled difference from PyTorch
        self.compile_s = None
        self.times = {}    # (peer, threads) -> [round medians]

    def export(self):
        # Not under no_grad: there the encoder takes torch's fused fast path,
        # which has no ONNX export.
        outputs, axes = [self.output], None
        if self.kind == "decode":
            outputs += self.present
            axes = {n: {2: "past"} for n in self.names[2:]}
            axes.update({n: {2: "total"} for n in self.present})
        torch.onnx.export(self.model, tuple(self.args), self.onnx, opset_version=OPSET,
                          input_names=self.names, output_names=outputs,
                          dynamic_axes=axes)

    @staticmethod
    def npys_args(names, paths):
        return [arg for n, path in zip(names, paths) for arg in ("--input", f"{n}={path}")]

    def inputs(self, peer):
        """mxrun's (peer mxc) or ort_run.js's --input arguments."""
        return self.mxc_inputs if peer == "mxc" else self.npys_args(self.names, self.npys)


class Peers:
    def __init__(self, args):
        self.args = args
        self.env = dict(os.environ, NODE_PATH=os.path.join(HERE, ".peers", "node_modules"))
        self.ort_version = None

    def compile(self, row):
        start = time.perf_counter()
        shape = (["--dim", f"past=0..{MAX_POSITIONS}"] if row.kind == "decode" else
                 ["--input", f"{row.names[0]}={row.shape}"])
        if row.in_place:
            shape.append("--kv-cache=in-place")
        r = subprocess.run([self.args.mxc, row.onnx, "-o", row.lib, "--quiet", *shape],
                           capture_output=True, text=True)
        if r.returncode != 0:
            row.errors["mxc"] = "compile failed: " + bench_util.first_lines(r)
            return
        row.compile_s = time.perf_counter() - start

    def measure(self, peer, row, threads, warmup, runs, out_dir=None):
        """The median ms of `runs` timed runs after `warmup` untimed ones,
        writing the output to `out_dir` when given."""
        if peer == "PyTorch":
            torch.set_num_threads(threads)
            bench_util.set_openblas_threads(threads)
            times = []
            with torch.no_grad():
                y = row.model(*row.args)
                y = y[0] if isinstance(y, tuple) else y
                for _ in range(warmup):
                    row.model(*row.args)
                for _ in range(runs):
                    start = time.perf_counter()
                    row.model(*row.args)
                    times.append((time.perf_counter() - start) * 1e3)
            if out_dir:
                os.makedirs(out_dir, exist_ok=True)
                np.save(os.path.join(out_dir, row.output + ".npy"), y.numpy())
            return float(np.median(times))
        if peer == "mxc":
            cmd = [self.args.mxrun, row.lib, "--json", "--threads", str(threads),
                   "--warmup", str(warmup), "--bench", str(runs)]
            env = None
        else:
            cmd = ["node", os.path.join(HERE, "ort_run.js"), row.onnx, "--threads",
                   str(threads), "--warmup", str(warmup), "--runs", str(runs)]
            env = self.env
        cmd += row.inputs(peer)
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
        """Runs every peer once at one thread and compares mxc's and ORT's
        outputs with PyTorch's."""
        outputs = {}
        for peer in ["PyTorch", "ORT", "mxc"]:
            if peer in row.errors:
                continue
            out_dir = os.path.join(self.args.work, "out", row.key, peer)
            try:
                self.measure(peer, row, 1, 0, 1, out_dir)
            except RuntimeError as e:
                row.errors[peer] = f"run failed: {e}"
                continue
            outputs[peer] = np.load(os.path.join(out_dir, row.output + ".npy"))
        if "PyTorch" not in outputs:
            return
        ref = outputs["PyTorch"].astype(np.float64)
        for peer in ("ORT", "mxc"):
            if peer not in outputs:
                continue
            out = outputs[peer]
            diff = (math.inf if out.shape != ref.shape else
                    float(np.abs(out - ref).max() / np.abs(ref).max()))
            row.diffs[peer] = diff
            if not diff <= tolerance:
                row.errors[peer] = f"output differs from PyTorch's by {diff:.2g}"


def decode_bound(row, bandwidth):
    """The decode row against the memory-bandwidth bound: each token reads every
    weight once (the tied head the whole token embedding; the position embedding
    one row) and the cache's keys and values."""
    g = row.model.gpt
    weights = 4 * (sum(p.numel() for p in g.parameters()) - g.pos.weight.numel())
    cache = 4 * sum(x.numel() for x in row.args[2:])
    text = [f"{row.title}: weights {weights / 1e6:.0f} MB read per token (the cache "
            f"adds {cache / 1e6:.0f} MB); read bandwidth from bench/bandwidth.c (threads "
            f"summing their parts of 1 GiB), measured in every round, the median:", "",
            "| threads | read bandwidth (GB/s) | weights' bound (ms per token) "
            "| mxc (ms) | tokens/s | mxc at % of the bound |",
            "|---:|---:|---:|---:|---:|---:|"]
    for t, samples in bandwidth.items():
        gbs = float(np.median(samples))
        bound_ms = weights / (gbs * 1e9) * 1e3
        times = row.times.get(("mxc", t))
        ms = float(np.median(times)) if times else None
        text.append(f"| {t} | {gbs:.1f} | {bound_ms:.1f} | " +
                    (f"{ms:.1f} | {1e3 / ms:.1f} | {bound_ms / ms:.0%} |" if ms else
                     "– | – | – |"))
    return "\n".join(text)


def table(args, rows):
    out = ["| model | threads | mxc (ms) | ONNX Runtime (ms) | PyTorch (ms) "
           "| mxc / ORT | mxc / PyTorch |", "|---|---:|---:|---:|---:|---:|---:|"]
    for row in rows:
        for t in args.threads:
            ms = {p: float(np.median(row.times[(p, t)])) for p in PEERS
                  if row.times.get((p, t))}
            cells = [f"{ms[p]:.1f}" if p in ms else row.errors.get(p, "–") for p in PEERS]
            ratios = [f"{ms['mxc'] / ms[p]:.2f}" if "mxc" in ms and p in ms else "–"
                      for p in ("ORT", "PyTorch")]
            out.append(f"| {row.title} | {t} | " + " | ".join(cells + ratios) + " |")
    out += ["", "| model | mxc input | mxc compile (s) | mxc vs PyTorch | ORT vs PyTorch |",
            "|---|---|---:|---:|---:|"]
    for row in rows:
        diff = lambda p: f"{row.diffs[p]:.1e}" if p in row.diffs else "–"
        compile_s = f"{row.compile_s:.1f}" if row.compile_s else "–"
        shape = row.shape if row.kind == "decode" else f"{row.names[0]}={row.shape}"
        out.append(f"| {row.title} | {shape} | {compile_s} "
                   f"| {diff('mxc')} | {diff('ORT')} |")
    return "\n".join(out)


def main():
    args = bench_util.rounds_args(__doc__, ROWS)
    keys = args.rows
    torch.set_num_interop_threads(1)
    load = os.getloadavg()[0]
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="mxc-transformer-bench-") as tmp:
        args.work = args.work or tmp
        os.makedirs(args.work, exist_ok=True)
        bench_util.ensure_onnxruntime_node(os.path.join(HERE, ".peers"))
        peers = Peers(args)
        models = {}
        rows = []
        for key in keys:
            kind = ROWS[key][0]
            if kind not in models:
                torch.manual_seed(0)
                models[kind] = (encoder() if kind == "encoder" else
                                Gpt() if kind == "gpt" else GptStep(Gpt())).eval()
            rows.append(Row(key, models, args.work))
            bench_util.prepare_rows(rows[-1:], peers, args.tolerance, log)
        # The read bandwidth the decode step is bound by, measured in every
        # round (this VM's speed wanders from minute to minute).
        probe = (bandwidth_probe(args.work) if any(r.kind == "decode" for r in rows)
                 else None)
        bandwidth = {}

        def measure_bandwidth(_):
            if probe:
                for t, gbs in read_bandwidth_gbs(probe, args.threads).items():
                    bandwidth.setdefault(t, []).append(gbs)

        bench_util.time_rounds(args, rows, peers, PEERS, log, measure_bandwidth)
    node = subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip()
    print(f"{bench_util.cpu_name()} ({os.cpu_count()} CPUs); "
          f"{bench_util.mxc_version(args.mxc)}; onnxruntime-node "
          f"{peers.ort_version or '?'} (Node.js {node}); PyTorch {torch.__version__} "
          f"(OMP_WAIT_POLICY={os.environ['OMP_WAIT_POLICY']}). "
          f"Batch 1, float32; each time the median of {args.rounds} interleaved rounds' "
          f"medians of {args.runs} runs (after {args.warmup} untimed); a ratio below 1 "
          f"means mxc is faster. Load average {load:.1f} at the start, "
          f"{os.getloadavg()[0]:.1f} at the end.\n")
    print(table(args, rows))
    for row in rows:
        if row.kind == "decode":
            print("\n" + decode_bound(row, bandwidth))
    log(f"done in {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
