#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
# Checks every compiled gradient against float64 central finite differences
# (issue #4). Each case in cases/ is a `func.func @forward` in f64 whose
# parameters carry `mx.param`; a `// GRADCHECK: {...}` line says how to draw
# the inputs ("args") or gives their values ("values"; i64 arguments hold
# indices), and which loss the outputs define. The case is compiled with
# `mxc-opt --mxc-gradient --mxc-cpu-pipeline`, mlir-translate and
# clang into a shared object, and `forward` / `forward_grad` are called
# through ctypes (bare pointers: inputs, outputs, then the arena).
#
# usage: check_gradients.py MXC_OPT WORK_DIR [CASE.mlir ...]
import ctypes
import glob
import json
import os
import re
import subprocess
import sys

import numpy as np

LLVM_BIN = "/usr/lib/llvm-22/bin"
CC = "clang-22"
DTYPES = {"f64": np.float64, "f32": np.float32, "i64": np.int64}


def parse_type(t):
    m = re.fullmatch(r"tensor<(.*)>", t.strip())
    parts = m.group(1).split("x")
    return tuple(int(d) for d in parts[:-1]), DTYPES[parts[-1]]


def parse_signature(src):
    """Arguments (name, shape, dtype, is_param) and results of @forward."""
    m = re.search(r"func\.func @forward\((.*?)\)\s*->\s*(.*?)\s*\{\s*\n", src,
                  re.S)
    args = []
    for a in re.finditer(r"%(\w+)\s*:\s*(tensor<[^>]*>)\s*(\{[^}]*\})?",
                         m.group(1)):
        shape, dt = parse_type(a.group(2))
        args.append((a.group(1), shape, dt, "mx.param" in (a.group(3) or "")))
    res = [parse_type(t) for t in re.findall(r"tensor<[^>]*>", m.group(2))]
    return args, res


def draw(kind, shape, rng):
    if kind.startswith("class:") or kind.startswith("int:"):
        return rng.integers(0, int(kind.split(":")[1]), shape).astype(np.float64)
    if kind == "positive":
        return rng.uniform(0.5, 2.0, shape)
    if kind == "unit":
        return rng.uniform(-0.9, 0.9, shape)
    if kind == "above1":
        return rng.uniform(1.2, 3.0, shape)
    if kind == "prob":
        return rng.uniform(0.05, 0.95, shape)
    return rng.standard_normal(shape)


def loss_of(spec, outs, inputs):
    kind = spec.get("loss", "sum")
    scale = spec.get("grad_scale", 1.0)
    if kind == "sum":
        return scale * sum(float(np.sum(o)) for o in outs)
    if kind == "softmax_ce":
        # outs[0] = probabilities (N, K) over the last axis, label (N,).
        p, lab = outs[0], inputs[spec["label"]]
        p2 = p.reshape(-1, p.shape[-1]) if not spec.get("multi_output") else \
            np.moveaxis(p, 1, -1).reshape(-1, p.shape[1])
        lab = lab.reshape(-1).astype(int)
        keep = np.ones_like(lab, dtype=bool)
        if spec.get("use_ignore"):
            keep = lab != int(spec.get("ignore_label", -1))
        ce = -np.sum(np.log(p2[np.arange(len(lab)), lab])[keep])
        norm = {"null": 1.0, "batch": float(p.shape[0]) if not spec.get(
            "multi_output") else float(lab.size),
                "valid": max(float(np.sum(lab != int(spec.get(
                    "ignore_label", -1)))), 1.0)}[spec.get("normalization",
                                                           "null")]
        return scale * ce / norm
    if kind in ("l2", "logistic"):
        o, lab = outs[0], inputs[spec["label"]].reshape(outs[0].shape)
        num_output = o.size / o.shape[0]
        if kind == "l2":
            return scale * 0.5 * float(np.sum((o - lab) ** 2)) / num_output
        return -scale * float(np.sum(lab * np.log(o) + (1 - lab) *
                                     np.log(1 - o))) / num_output
    raise ValueError(kind)


class Compiled:
    def __init__(self, mxc_opt, case, work):
        base = os.path.join(work, os.path.basename(case)[:-5])
        llvm_mlir = subprocess.run(
            [mxc_opt, "--mxc-gradient", "--mxc-cpu-pipeline", case],
            check=True, capture_output=True, text=True).stdout
        open(base + ".llvm.mlir", "w").write(llvm_mlir)
        m = re.search(r"mxc\.arena_size\s*=\s*(\d+)", llvm_mlir)
        self.arena = int(m.group(1)) if m else 0
        self.nptr = {}
        for f in ("forward", "forward_grad"):
            h = re.search(r"llvm\.func @%s\((.*?)\)" % f, llvm_mlir)
            self.nptr[f] = h.group(1).count("!llvm.ptr")
        subprocess.run([os.path.join(LLVM_BIN, "mlir-translate"),
                        "--mlir-to-llvmir", base + ".llvm.mlir", "-o",
                        base + ".ll"], check=True)
        subprocess.run([CC, "-shared", "-fPIC", "-O1", base + ".ll", "-o",
                        base + ".so", "-lm"], check=True, capture_output=True)
        self.lib = ctypes.CDLL(os.path.abspath(base + ".so"))

    def call(self, name, inputs, result_types):
        outs = [np.zeros(s, dtype=d) for s, d in result_types]
        arrays = [np.ascontiguousarray(a) for a in inputs] + outs
        ptrs = [a.ctypes.data_as(ctypes.c_void_p) for a in arrays]
        extra = self.nptr[name] - len(ptrs)
        assert extra in (0, 1), (name, self.nptr[name], len(ptrs))
        arena = np.zeros(max(self.arena, 1) + 64, dtype=np.uint8)
        if extra:
            ptrs.append(arena.ctypes.data_as(ctypes.c_void_p))
        fn = getattr(self.lib, name)
        fn.restype = None
        fn(*ptrs)
        return outs


def check(mxc_opt, case, work):
    src = open(case).read()
    m = re.search(r"//\s*GRADCHECK:\s*(\{.*\})", src)
    spec = json.loads(m.group(1)) if m else {}
    args, results = parse_signature(src)
    rng = np.random.default_rng(spec.get("seed", 0))
    inputs = {}
    for name, shape, dt, _ in args:
        inputs[name] = draw(spec.get("args", {}).get(name, "normal"), shape,
                            rng).astype(dt)
        # Fixed values (indices, zeros, ties) replace the drawn ones.
        if name in spec.get("values", {}):
            inputs[name] = np.array(spec["values"][name], dtype=dt).reshape(
                shape)
    params = [(i, a) for i, a in enumerate(args) if a[3]]
    comp = Compiled(mxc_opt, case, work)
    names = [a[0] for a in args]
    grad_types = results + [(a[1], a[2]) for _, a in params]
    grad_types += [(a[1], a[2]) for a in spec.get("aux", [])]
    extra_aux = spec.get("num_aux", 0)
    # The aux updates (BatchNorm moving stats) follow the gradients.
    aux_types = [(args[names.index(n)][1], args[names.index(n)][2])
                 for n in spec.get("aux_args", [])]
    got = comp.call("forward_grad", [inputs[n] for n in names],
                    results + [(a[1], a[2]) for _, a in params] + aux_types)
    fwd = comp.call("forward", [inputs[n] for n in names], results)
    # Training semantics (BatchNorm batch statistics) change the forward.
    if not spec.get("training"):
        for o, g in zip(fwd, got):
            if not np.allclose(o, g, rtol=1e-12, atol=1e-12):
                return "forward_grad's outputs differ from forward's"
    all_types = results + [(a[1], a[2]) for _, a in params] + aux_types

    def loss(vals):
        outs = comp.call("forward_grad", [vals[n] for n in names], all_types)
        return loss_of(spec, outs[:len(results)], vals)

    if "expect" in spec:
        # Gradients FD cannot see (BlockGrad): compare with a formula.
        expect = eval(spec["expect"], {"np": np, "x": inputs})
        for e, g in zip(expect, got[len(results):]):
            if not np.allclose(e, g, rtol=1e-10, atol=1e-10):
                return "gradient %s differs from the expected %s" % (g, e)
        return "ok (matches the expected formula)"

    eps = spec.get("eps", 1e-6)
    tol = spec.get("tol", 1e-5)
    worst = 0.0
    for k, (i, (name, shape, dt, _)) in enumerate(params):
        analytic = got[len(results) + k]
        flat = inputs[name].reshape(-1)
        idx = range(flat.size)
        if flat.size > 64:
            idx = rng.choice(flat.size, 64, replace=False)
        for j in idx:
            saved = flat[j]
            flat[j] = saved + eps
            lp = loss(inputs)
            flat[j] = saved - eps
            lm = loss(inputs)
            flat[j] = saved
            num = (lp - lm) / (2 * eps)
            a = analytic.reshape(-1)[j]
            err = abs(a - num) / max(1.0, abs(num))
            worst = max(worst, err)
            if err > tol:
                return "d loss / d %s[%d]: analytic %.8g, numeric %.8g" % (
                    name, j, a, num)
    if "check_aux" in spec:
        expect = eval(spec["check_aux"], {"np": np, "x": inputs})
        for e, g in zip(expect, got[len(results) + len(params):]):
            if not np.allclose(e, g, rtol=1e-10, atol=1e-10):
                return "moving statistics differ: %s vs %s" % (e, g)
    return "ok (max rel err %.2e)" % worst


def main():
    mxc_opt, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    cases = [c for a in sys.argv[3:] for c in (sorted(glob.glob(os.path.join(a, "*.mlir"))) if os.path.isdir(a) else [a])] or sorted(glob.glob(os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "cases", "*.mlir")))
    failed = 0
    for case in cases:
        try:
            verdict = check(mxc_opt, case, work)
        except subprocess.CalledProcessError as e:
            verdict = "compile error: " + (e.stderr or "")[-2000:]
        except Exception as e:  # report and keep going
            verdict = "error: %r" % e
        ok = verdict.startswith("ok")
        failed += not ok
        print("%s %s: %s" % ("PASS" if ok else "FAIL",
                             os.path.basename(case), verdict))
    print("%d of %d gradient checks passed" % (len(cases) - failed,
                                               len(cases)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
