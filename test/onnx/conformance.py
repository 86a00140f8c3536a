#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
#
# Runs the ONNX backend test cases shipped by Debian's libonnx-testdata through mxc and mxrun,
# classifies every case PASS / FAIL / UNSUPPORTED, and writes a per-operator Markdown report, a
# per-case result list and (on request) the baseline of cases that must keep passing.
"""ONNX conformance runner for mxc.

  conformance.py [--mxc PATH] [--mxrun PATH] [--data-dir DIR] [--suite S]... [--filter REGEX]
                 [-j N] [--workdir DIR] [--timeout S] [--cache DIR] [--report FILE]
                 [--results FILE] [--baseline FILE] [--only-baseline] [--check-baseline]
                 [--update-baseline] [--min-pass SUITE=N]... [--modes MODE,...] [--convert-only]
                 [-v]

Each case folder holds model.onnx and test_data_set_*/{input,output}_*.pb. A case is compiled
once per distinct set of input shapes (`mxc model.onnx --input NAME=SHAPE... -o libmodel.so`),
run once per data set (`mxrun libmodel.so --input NAME=FILE.npy... --output-dir DIR`), and every
output is compared with its reference:

  PASS         every output of every data set matches (floats: rtol 1e-3, atol 1e-4, NaN equals
               NaN; bfloat16: rtol 2^-7, one bfloat16 ulp; integers and bools exactly; dtype and
               shape exactly).
  UNSUPPORTED  mxc exits 1 with a message saying something is "unsupported" / "not supported",
               or the case needs values .npy cannot carry (maps).
  FAIL         anything else: wrong values, dtype or shape, a crash, a timeout, any other mxc
               error, an mxrun error.

--modes picks how cases are compiled (default: `default`; `default,plain` runs both sweeps):

  default      as above: `--input NAME=SHAPE` for every graph input, and when mxc says an input
               must be a compile-time constant, the test's small vectors and
               scalars again through `--bind NAME=FILE.pb`.
  plain        as a plain user would: `mxc model.onnx -o libmodel.so`, no `--input` for tensor
               inputs and never `--bind`. Sequence and optional inputs still get their
               `--input NAME=seq(...)` / `NAME=none`: mxc has no other way to learn them.
  ort          ONNX Runtime runs each case instead (test/onnx/ort_case.js through npm's
               onnxruntime-node, installed into bench/.peers on first use), on the same .npy
               inputs, its outputs compared the same way; only beside default or plain, whose
               counts the report sets it against (results-ort.txt holds its per-case list).

The report's tables, the results file and the baseline are the default mode's; with both modes
the report gains a plain-mode section: its counts beside the default's, and the cases that pass
by default but not plain, by cause and by operator. The plain mode's per-case list goes to the
results file's sibling (results-plain.txt); `--modes plain` alone writes it and a report of its
own. --check-baseline, --update-baseline and --min-pass need the default mode.

NumPy has no bfloat16: such tensors travel as structured arrays [('bfloat16', '<u2')] of their
raw bits (mxrun's encoding). Their tolerance is one ulp because libonnx-testdata 1.12's expected
float -> bfloat16 casts truncate, while mxc rounds to nearest even, as ONNX's float32_to_bfloat16
helper and onnxruntime do (onnx/onnx#3876).

Exit status: 0 done (failing cases alone do not fail the run); 1 a baseline case no longer passes,
a --min-pass threshold is not met, or --convert-only found data it could not convert; 2 bad usage.
"""

import argparse
import collections
import concurrent.futures
import datetime
import glob
import hashlib
import io
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
from onnx import numpy_helper

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_DATA_DIR = "/usr/share/libonnx-testdata/data"
SUITES = ("node", "pytorch-converted", "pytorch-operator", "simple")
RTOL, ATOL = 1e-3, 1e-4
BF16_RTOL = 2.0 ** -7  # one ulp of bfloat16's 8-bit significand
BF16 = np.dtype([("bfloat16", "<u2")])
# How mxc says it lacks something (an op, an attribute value, a dtype): checked only on exit 1.
UNSUPPORTED_RE = re.compile(r"unsupported|not (yet )?supported|(does|do|can)( not|n't) support",
                            re.IGNORECASE)
PASS, FAIL, UNSUPPORTED = "PASS", "FAIL", "UNSUPPORTED"
MODES = ("default", "plain", "ort")  # see the docstring's --modes
ORT_CASE = os.path.join(HERE, "ort_case.js")
ORT_PEERS = os.path.join(REPO, "bench", ".peers")


def die(msg):
    """Bad usage, not a failing case: exit 2 so a wrapper can tell them apart."""
    print("conformance.py: error: " + msg, file=sys.stderr)
    sys.exit(2)


def one_line(text, limit=240):
    """Tool output folded onto the case's single result line."""
    text = " | ".join(l.strip() for l in str(text).strip().splitlines() if l.strip())
    return text if len(text) <= limit else text[:limit] + " ..."


def tool_error(stderr, model_path=None):
    """What of a tool's stderr is worth reporting: its first `error:` line without the tool's
    prefix (and the line after it when it ends in `:`), else its last line."""
    if model_path:
        stderr = stderr.replace("'%s': " % model_path, "").replace(model_path, "model.onnx")
    lines = [l.strip() for l in stderr.strip().splitlines() if l.strip()]
    for i, l in enumerate(lines):
        if "error:" in l:
            msg = re.sub(r"^[\w.-]+: error: ", "", l)
            if msg.endswith(":") and i + 1 < len(lines):
                msg += " " + lines[i + 1]
            return one_line(msg)
    return one_line(lines[-1]) if lines else "(no message)"


def file_name(name):
    """How mxrun names an output file: characters outside [A-Za-z0-9._-] become `_`, and a
    name that is empty or starts with `.` gets a leading `_`."""
    name = re.sub(r"[^A-Za-z0-9._-]", "_", name)
    return "_" + name if not name or name.startswith(".") else name


def shape_arg(shape):
    return "x".join(str(d) for d in shape) if shape else "scalar"


def pieces(name, kind, value):
    """How one graph value travels: (mxc --input binding, [(name in the compiled model, array)]).
    Sequences of known length are their elements NAME[i] (`--input NAME=seq(SHAPE,...)`); an
    optional is its value, or nothing (`--input NAME=none`)."""
    if kind == "optional":
        if value is None:
            return "none", []
        kind = "sequence" if isinstance(value, list) else "tensor"
    if kind == "sequence":
        arrays = [text_array(a) for a in value]
        return ("seq(%s)" % ",".join(shape_arg(a.shape) for a in arrays),
                [("%s[%d]" % (name, i), a) for i, a in enumerate(arrays)])
    return shape_arg(value.shape), [(name, value)]


def run(cmd, timeout):
    """(returncode or None on timeout, stdout, stderr, seconds)."""
    start = time.monotonic()
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout,
                           universal_newlines=True, errors="replace")
        return p.returncode, p.stdout, p.stderr, time.monotonic() - start
    except subprocess.TimeoutExpired:
        return None, "", "timed out after %g s" % timeout, time.monotonic() - start


def describe_rc(rc):
    if rc is None:
        return "timed out"
    return "killed by signal %d" % -rc if rc < 0 else "exit %d" % rc


# ---- models and data -----------------------------------------------------------------------

def value_kind(value_info):
    """'tensor', 'sequence', 'optional', 'map', 'sparse_tensor' or 'unknown'."""
    which = value_info.type.WhichOneof("value")
    return which[:-len("_type")] if which else "unknown"


def graph_ops(graph):
    """Op types of the graph's nodes and of every subgraph (If/Loop/Scan bodies)."""
    ops = set()
    for node in graph.node:
        domain = "" if node.domain in ("", "ai.onnx") else node.domain + "."
        ops.add(domain + node.op_type)
        for attr in node.attribute:
            for g in ([attr.g] if attr.HasField("g") else []) + list(attr.graphs):
                ops |= graph_ops(g)
    return ops


def pick_operator(case, graph):
    """The op a node test is about: the only op type, else the one the case name starts with."""
    ops = []
    for node in graph.node:
        if node.op_type not in ops:
            ops.append(node.op_type)
    if not ops:
        return "(no nodes)"
    if len(ops) == 1:
        return ops[0]
    key = re.sub(r"^test_", "", case).replace("_", "").lower()
    prefix = [op for op in ops if key.startswith(op.lower())]
    if prefix:
        return max(prefix, key=len)
    inside = [op for op in ops if op.lower() in key]
    return max(inside, key=len) if inside else ops[0]


def case_operator(suite, case_dir, model):
    case = os.path.basename(case_dir)
    if suite != "node":
        return case
    # An `_expanded` case runs the function body of its sibling's op: label it by that op.
    if case.endswith("_expanded"):
        sibling = os.path.join(os.path.dirname(case_dir), case[:-len("_expanded")], "model.onnx")
        if os.path.isfile(sibling):
            try:
                return pick_operator(case, onnx.load(sibling).graph) + " (expanded)"
            except Exception:
                pass
    return pick_operator(case, model.graph)


def opset_of(model):
    for imp in model.opset_import:
        if imp.domain in ("", "ai.onnx"):
            return imp.version
    return None


def load_value(path, value_info):
    """Reads one input_*.pb / output_*.pb as the graph declares it; returns (kind, value)."""
    kind = value_kind(value_info)
    with open(path, "rb") as f:
        data = f.read()
    if kind == "sequence":
        proto = onnx.SequenceProto()
        proto.ParseFromString(data)
        return kind, numpy_helper.to_list(proto)
    if kind == "optional":
        proto = onnx.OptionalProto()
        proto.ParseFromString(data)
        return kind, numpy_helper.to_optional(proto)
    if kind == "map":
        proto = onnx.MapProto()
        proto.ParseFromString(data)
        return kind, numpy_helper.to_dict(proto)
    proto = onnx.TensorProto()
    proto.ParseFromString(data)
    array = numpy_helper.to_array(proto)
    if kind == "tensor" and value_info.type.tensor_type.elem_type == onnx.TensorProto.BFLOAT16:
        array = bfloat16_bits(array)
    return kind, text_array(array)


def text_array(array):
    """ONNX string tensors (NumPy object arrays of str or bytes) as NumPy text ('<U'), which
    .npy files carry and mxc's runtime reads; other arrays as they are."""
    if not isinstance(array, np.ndarray) or array.dtype != object:
        return array
    items = [x.decode("utf-8") if isinstance(x, bytes) else str(x) for x in array.flat]
    return np.array(items, dtype=str if items else "<U1").reshape(array.shape)


def bfloat16_bits(array):
    """A bfloat16 tensor as BF16 raw bits: test data holds them as uint16, or as float32 values
    (rounded to nearest even here)."""
    if array.dtype == np.float32:
        bits = np.ascontiguousarray(array).view(np.uint32).astype(np.uint64)
        rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
        array = np.where(np.isnan(array), np.uint16(0x7FC0), rounded)
    return np.ascontiguousarray(array.astype("<u2")).view(BF16)


def bfloat16_values(array):
    """BF16 raw bits as float32 values."""
    return (array["bfloat16"].astype(np.uint32) << 16).view(np.float32)


def npy_problem(array):
    """Why `array` cannot travel through a plain .npy file, or None."""
    if not isinstance(array, np.ndarray):
        return "not a tensor"
    if array.dtype.kind == "O":
        return "object array"
    buf = io.BytesIO()
    np.save(buf, array, allow_pickle=False)
    return None


def data_sets(case_dir):
    def index(p):
        return int(re.search(r"(\d+)$", p).group(1))
    return sorted(glob.glob(os.path.join(case_dir, "test_data_set_*")), key=index)


def pb_files(ds, prefix):
    files = glob.glob(os.path.join(ds, prefix + "_*.pb"))
    return sorted(files, key=lambda p: int(re.search(r"_(\d+)\.pb$", p).group(1)))


def graph_io(model):
    inits = {t.name for t in model.graph.initializer} | \
            {t.values.name for t in model.graph.sparse_initializer}
    inputs = [vi for vi in model.graph.input if vi.name not in inits]
    return inputs, list(model.graph.output)


# ---- one case ------------------------------------------------------------------------------

def compare(name, got, ref):
    """None when `got` matches `ref`, else why not."""
    if ref.dtype.kind == "U":  # text: any width, exactly the same strings
        if got.dtype.kind != "U":
            return "%s: dtype %s, expected strings" % (name, got.dtype)
    elif got.dtype != ref.dtype:
        return "%s: dtype %s, expected %s" % (name, got.dtype, ref.dtype)
    if got.shape != ref.shape:
        return "%s: shape %s, expected %s" % (name, got.shape, ref.shape)
    rtol = RTOL
    if ref.dtype == BF16:
        got, ref, rtol = bfloat16_values(got), bfloat16_values(ref), BF16_RTOL
    if ref.dtype.kind not in "fc":
        bad = got != ref
        if bad.any():
            i = np.unravel_index(np.argmax(bad), ref.shape)
            return "%s: %d of %d elements differ (first at %s: %s, expected %s)" % (
                name, bad.sum(), ref.size, tuple(int(x) for x in i), got[i], ref[i])
        return None
    g, r = got.astype(np.complex128 if ref.dtype.kind == "c" else np.float64), \
        ref.astype(np.complex128 if ref.dtype.kind == "c" else np.float64)
    ok = np.isclose(g, r, rtol=rtol, atol=ATOL, equal_nan=True)
    if ok.all():
        return None
    err = np.abs(g - r)
    err[np.isnan(err)] = np.inf
    err[ok] = 0
    i = np.unravel_index(np.argmax(err), ref.shape)
    return "%s: %d of %d elements off (worst at %s: %.7g, expected %.7g)" % (
        name, (~ok).sum(), ref.size, tuple(int(x) for x in i), g[i].real, r[i].real)


def classify_mxc(rc, stderr, made_lib, model_path):
    """(status, reason) of one mxc call; PASS means a library was written."""
    if rc == 0 and made_lib:
        return PASS, ""
    if rc == 0:
        return FAIL, "mxc: exit 0 but no library written"
    if rc == 1 and UNSUPPORTED_RE.search(stderr):
        return UNSUPPORTED, "mxc: " + tool_error(stderr, model_path)
    return FAIL, "mxc %s: %s" % (describe_rc(rc), tool_error(stderr, model_path))


CONST_INPUT_RE = re.compile(r"must be (a )?compile-time constants?")


def is_shape_like(arr):
    """What tests feed as inputs but static compilers need at compile time: small
    vectors (shapes, axes, pads, starts, Resize's scales and region of interest) and
    scalars (Range bounds, a pad value, Dropout's training_mode)."""
    small = arr.dtype.kind in "iubf" and arr.ndim <= 1 and arr.size <= 16
    return small or arr.ndim == 0


def compile_model(args, model_path, model_bytes, shapes, out_dir, binds=(), mode="default"):
    """Runs mxc, or reuses the cached outcome of the same mxc binary on the same model, mode
    and shapes; returns (library or None, status, reason, seconds or None when cached).
    `binds` lists (input name, TensorProto file) fed at compile time with --bind."""
    cmd = [args.mxc, model_path]
    for name, binding in shapes:
        cmd += ["--input", "%s=%s" % (name, binding)]
    for name, pb in binds:
        cmd += ["--bind", "%s=%s" % (name, pb)]
    key = None
    if args.cache:
        h = hashlib.sha256(args.mxc_digest.encode())
        h.update(model_bytes)
        if mode != "default":  # keeps the default mode's keys as they were
            h.update(b"\0mode=" + mode.encode())
        h.update(json.dumps(shapes).encode())
        for _, pb in binds:
            with open(pb, "rb") as f:
                h.update(f.read())
        key = os.path.join(args.cache, h.hexdigest()[:32])
        try:
            with open(key + ".json") as f:
                hit = json.load(f)
            made = hit["rc"] == 0 and os.path.isfile(key + ".so")
            if hit["rc"] != 0 or made:
                status, reason = classify_mxc(hit["rc"], hit["stderr"], made, model_path)
                return (key + ".so" if status == PASS else None), status, reason, None
        except (OSError, ValueError, KeyError):
            pass
    lib = os.path.join(out_dir, "libmodel.so")
    rc, _, err, secs = run(cmd + ["-o", lib], args.timeout)
    # Scratch paths would make every run's messages differ.
    err = re.sub(r"\.tmp\d+", "", err.replace(out_dir + os.sep, ""))
    status, reason = classify_mxc(rc, err, os.path.isfile(lib), model_path)
    if key and rc is not None:  # a timeout may not repeat: never cache one
        if status == PASS:
            tmp = "%s.%d.so" % (key, os.getpid())
            shutil.copyfile(lib, tmp)
            os.replace(tmp, key + ".so")
        tmp = "%s.%d.json" % (key, os.getpid())
        with open(tmp, "w") as f:
            json.dump({"rc": rc, "stderr": err[-20000:]}, f)
        os.replace(tmp, key + ".json")
    return (lib if status == PASS else None), status, reason, secs


def run_case(job):
    """Runs one case; returns its result record (a dict, so it pickles across processes)."""
    args, suite, case_dir, mode = job
    case = os.path.basename(case_dir)
    res = {"suite": suite, "case": case, "status": FAIL, "reason": "", "operator": case,
           "opset": None, "ops": [], "compile_s": 0.0, "cached": 0, "run_s": 0.0, "mode": mode}

    def done(status, reason=""):
        res["status"], res["reason"] = status, one_line(reason)
        return res

    model_path = os.path.join(case_dir, "model.onnx")
    try:
        with open(model_path, "rb") as f:
            model_bytes = f.read()
        model = onnx.load_from_string(model_bytes)
    except Exception as e:
        return done(FAIL, "runner: cannot load model.onnx: %s" % e)
    res["operator"] = case_operator(suite, case_dir, model)
    res["opset"] = opset_of(model)
    res["ops"] = sorted(graph_ops(model.graph))
    inputs, outputs = graph_io(model)
    for vi in inputs + outputs:
        kind = value_kind(vi)
        if kind not in ("tensor", "sequence", "optional"):
            return done(UNSUPPORTED, "runner: %s-typed value '%s' cannot travel as .npy"
                        % (kind, vi.name))
    sets = data_sets(case_dir)
    if not sets:
        return done(FAIL, "runner: no test_data_set_* folder")

    work = os.path.join(args.workdir, *(([] if mode == "default" else [mode]) + [suite, case]))
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    libs = {}  # shape signature -> lib path
    bound = None  # inputs fed at compile time, once mxc asked for constants

    def bound_for(ds):
        files = pb_files(ds, "input")
        return [(vi.name, pb) for vi, pb in zip(inputs, files) if vi.name in (bound or [])]

    for n, ds in enumerate(sets):
        in_files, out_files = pb_files(ds, "input"), pb_files(ds, "output")
        if len(in_files) != len(inputs) or len(out_files) != len(outputs):
            return done(FAIL, "runner: %s has %d inputs / %d outputs, the graph %d / %d" % (
                os.path.basename(ds), len(in_files), len(out_files), len(inputs), len(outputs)))
        ds_dir = os.path.join(work, "ds%d" % n)
        os.makedirs(ds_dir)
        feeds, shapes = [], []
        try:
            for i, (vi, pb) in enumerate(zip(inputs, in_files)):
                binding, parts = pieces(vi.name, *load_value(pb, vi))
                for k, (name, arr) in enumerate(parts):
                    why = npy_problem(arr)
                    if why:
                        return done(UNSUPPORTED, "runner: input '%s' is a %s" % (name, why))
                    path = os.path.join(ds_dir, "input_%d_%d.npy" % (i, k))
                    np.save(path, arr, allow_pickle=False)
                    feeds.append((name, path))
                # A plain user names no tensor shapes; sequences and optionals only
                # --input can describe.
                if mode != "plain" or value_kind(vi) != "tensor":
                    shapes.append((vi.name, binding))
            refs = [part for vi, pb in zip(outputs, out_files)
                    for part in pieces(vi.name, *load_value(pb, vi))[1]]
        except Exception as e:
            return done(FAIL, "runner: cannot convert %s: %s" % (os.path.basename(ds), e))

        if mode == "ort":
            status, reason = run_ort(args, model_path, inputs, outputs, feeds, ds_dir)
            if status != PASS:
                return done(status, reason)
            why = compare_outputs(os.path.join(ds_dir, "out"), refs)
            if why:
                return done(FAIL, ("%s: " % os.path.basename(ds) if len(sets) > 1 else "") + why)
            continue
        sig = json.dumps(shapes)
        if bound is not None:
            sig += json.dumps([pb for _, pb in bound_for(ds)])
        if sig not in libs:
            lib_dir = os.path.join(work, "lib%d" % len(libs))
            os.makedirs(lib_dir)
            binds = bound_for(ds) if bound is not None else []
            lib, status, reason, secs = compile_model(
                args, model_path, model_bytes,
                [sh for sh in shapes if sh[0] not in dict(binds)], lib_dir, binds, mode)
            if secs is None:
                res["cached"] += 1
            else:
                res["compile_s"] += secs
            if not lib and bound is None and mode != "plain" and CONST_INPUT_RE.search(reason):
                # A static compiler needs shape-like operands (Reshape's shape,
                # Pad's pads, ...) at compile time: bind the test's small
                # integer inputs with --bind and compile again.
                bound = [vi.name for vi, pb in zip(inputs, in_files)
                         if value_kind(vi) == "tensor" and
                         is_shape_like(load_value(pb, vi)[1])]
                if bound:
                    res["bound"] = bound
                    binds = bound_for(ds)
                    lib, status, reason, secs = compile_model(
                        args, model_path, model_bytes,
                        [sh for sh in shapes if sh[0] not in dict(binds)], lib_dir, binds)
                    res["compile_s"] += secs or 0.0
                    sig = json.dumps(shapes) + json.dumps([pb for _, pb in binds])
            if not lib:
                return done(status, reason)
            libs[sig] = lib
        out_dir = os.path.join(ds_dir, "out")
        feed_args = []
        for name, path in feeds:
            if name not in (bound or []):
                feed_args += ["--input", "%s=%s" % (name, path)]
        rc, _, err, secs = run([args.mxrun, libs[sig]] + feed_args + ["--output-dir", out_dir],
                               args.timeout)
        res["run_s"] += secs
        if rc != 0:
            return done(FAIL, "mxrun %s: %s" % (describe_rc(rc),
                                                tool_error(err.replace(work + os.sep, ""))))
        why = compare_outputs(out_dir, refs)
        if why:
            return done(FAIL, ("%s: " % os.path.basename(ds) if len(sets) > 1 else "") + why)
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return done(PASS)


def compare_outputs(out_dir, refs):
    """None when `out_dir` holds exactly the outputs `refs` and each matches, else why not."""
    written = set(os.listdir(out_dir)) if os.path.isdir(out_dir) else set()
    expected = {file_name(name) + ".npy" for name, _ in refs}
    if written - expected:
        return "unexpected outputs written: %s" % ", ".join(sorted(written - expected))
    for name, ref in refs:
        path = os.path.join(out_dir, file_name(name) + ".npy")
        if not os.path.isfile(path):
            return "output '%s' not written" % name
        try:
            got = np.load(path, allow_pickle=False)
        except Exception as e:
            return "output '%s' unreadable: %s" % (name, e)
        why = compare("'%s'" % name, got, ref)
        if why:
            return why
    return None


def run_ort(args, model_path, inputs, outputs, feeds, ds_dir):
    """--modes ort: ONNX Runtime (onnxruntime-node) runs the case on its .npy inputs;
    (status, reason). Sequences and optionals the Node binding cannot carry: UNSUPPORTED."""
    for vi in inputs + outputs:
        if value_kind(vi) != "tensor":
            return UNSUPPORTED, "ort: %s value '%s': the Node binding takes tensors only" % (
                value_kind(vi), vi.name)
    cmd = ["node", ORT_CASE, model_path, "--output-dir", os.path.join(ds_dir, "out")]
    for name, path in feeds:
        cmd += ["--input", "%s=%s" % (name, path)]
    rc, _, err, _ = run(cmd, args.timeout)
    if rc != 0:
        return FAIL, "ort %s: %s" % (describe_rc(rc), tool_error(err, model_path))
    return PASS, ""


def convert_case(job):
    """--convert-only: reads every input and output of a case; returns (converted, problems)."""
    _, suite, case_dir = job
    name = "%s/%s" % (suite, os.path.basename(case_dir))
    try:
        model = onnx.load(os.path.join(case_dir, "model.onnx"))
    except Exception as e:
        return 0, [("error", "%s: cannot load model.onnx: %s" % (name, e))]
    inputs, outputs = graph_io(model)
    count, problems = 0, []
    for ds in data_sets(case_dir):
        for prefix, values in (("input", inputs), ("output", outputs)):
            files = pb_files(ds, prefix)
            if len(files) != len(values):
                problems.append(("error", "%s/%s: %d %s files, graph has %d" % (
                    name, os.path.basename(ds), len(files), prefix, len(values))))
            for vi, pb in zip(values, files):
                where = "%s/%s/%s" % (name, os.path.basename(ds), os.path.basename(pb))
                try:
                    kind, value = load_value(pb, vi)
                except Exception as e:
                    problems.append(("error", "%s: %s" % (where, one_line(e))))
                    continue
                count += 1
                if kind not in ("tensor", "sequence", "optional"):
                    problems.append(("not-npy", "%s: %s value" % (where, kind)))
                    continue
                try:
                    why = None
                    for _, part in pieces(vi.name, kind, value)[1]:
                        why = why or npy_problem(part)
                except Exception as e:
                    why = "np.save failed: %s" % one_line(e)
                    problems.append(("error", "%s: %s" % (where, why)))
                    continue
                if why:
                    problems.append(("not-npy", "%s: %s" % (where, why)))
    return count, problems


# ---- selection, baseline, report -----------------------------------------------------------

def read_baseline(path):
    if not os.path.isfile(path):
        return []
    with open(path) as f:
        return [l.strip() for l in f if l.strip() and not l.startswith("#")]


def write_baseline(path, names, cmdline):
    with open(path, "w") as f:
        f.write("# ONNX conformance cases mxc passes; `conformance.py --check-baseline` fails\n"
                "# when one of them stops passing. Generated by:\n#   %s\n" % cmdline)
        for n in sorted(set(names)):
            f.write(n + "\n")


def select_cases(args, baseline):
    cases = []
    pattern = re.compile(args.filter) if args.filter else None
    only = set(baseline) if args.only_baseline else None
    for suite in args.suite:
        root = os.path.join(args.data_dir, suite)
        if not os.path.isdir(root):
            die("no suite folder %s" % root)
        for case_dir in sorted(glob.glob(os.path.join(root, "*", "model.onnx"))):
            case_dir = os.path.dirname(case_dir)
            name = "%s/%s" % (suite, os.path.basename(case_dir))
            if pattern and not pattern.search(name):
                continue
            if only is not None and name not in only:
                continue
            cases.append((suite, case_dir))
    return cases


def counts(results):
    c = collections.Counter(r["status"] for r in results)
    return c[PASS], c[FAIL], c[UNSUPPORTED], len(results)


def table(rows, first, extra=None):
    """Markdown rows of (name, counts[, extra column])."""
    out = ["| %s | passed | failed | unsupported | total |%s" % (first, extra and
                                                                 " %s |" % extra or ""),
           "|---|---:|---:|---:|---:|%s" % ("---|" if extra else "")]
    for row in rows:
        out.append("| %s | %d | %d | %d | %d |" % ((row[0],) + row[1]) +
                   (" %s |" % row[2] if extra else ""))
    return out


def make_report(args, results, cmdline, version, wall, plain=None, ort=None):
    """The Markdown report of `results`; `plain`, the plain mode's results of the same cases,
    adds its section."""
    by_suite = collections.OrderedDict((s, []) for s in args.suite)
    for r in results:
        by_suite[r["suite"]].append(r)
    for s in [s for s, rs in by_suite.items() if not rs]:
        del by_suite[s]
    try:
        data_version = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", "libonnx-testdata"],
                                      stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                      universal_newlines=True).stdout.strip()
    except OSError:
        data_version = ""
    def times(rs):
        return "mxc %.0f s, mxrun %.0f s" % (sum(r["compile_s"] for r in rs),
                                            sum(r["run_s"] for r in rs))
    cached = sum(r["cached"] for r in results + (plain or []))
    if plain:
        time_line = "%.0f s wall with -j %d for both modes (default: %s; plain: %s; summed " \
                    "over cases" % (wall, args.jobs, times(results), times(plain))
    else:
        time_line = "%.0f s wall with -j %d (%s summed over cases" % (wall, args.jobs,
                                                                      times(results))
    how = ("Each case is compiled once per set of input shapes, with `--input NAME=SHAPE` for "
           "every graph input taken from its test data (symbolic dimensions are bound), and run "
           "once per data set. When mxc says an input must be a compile-time constant (a "
           "Reshape's shape, Pad's pads, Range's bounds, ...), the case is compiled again with "
           "the test's small vectors and scalars fed through `--bind` (as a "
           "deployment would fix them).")
    results_are_default = not results or results[0]["mode"] == "default"
    modes = ""  # a default-mode run says what it always said
    if not results_are_default:
        how = "These are the results of `--modes plain` alone: " + PLAIN_HOW
        modes = "`--modes default,plain` runs both modes and reports them side by side. "
    elif plain:
        modes = "`--modes default,plain` also compiles every case as a plain user would " \
                "([Plain mode](#plain-mode)). "
    lines = [
        "# ONNX conformance of mxc",
        "",
        "<!-- Generated by test/onnx/conformance.py; do not edit by hand. -->",
        "",
        "- Command: `%s`" % cmdline,
        "- Date: %s" % datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z"),
        "- mxc: `%s`" % version,
        "- Data: `%s`%s" % (args.data_dir,
                            " (libonnx-testdata %s)" % data_version if data_version else ""),
        "- Time: %s%s)" % (time_line, "; %d mxc results from --cache" % cached
                            if cached else ""),
        "",
        "PASS: every output of every data set matches (floats rtol %g, atol %g, NaN equals NaN; "
        "bfloat16 within one ulp, rtol 2^-7, since the suite's expected float -> bfloat16 casts "
        "truncate where mxc rounds to nearest even; integers and bools exactly; dtypes and shapes "
        "exactly). UNSUPPORTED: mxc exits 1 saying something is unsupported, or the case needs "
        "values `.npy` cannot carry (maps). Strings travel as NumPy text and match exactly; a "
        "sequence input or output travels as its elements `NAME[i]` (`--input NAME=seq(SHAPE,...)`),"
        " an optional as its value or nothing (`--input NAME=none`). FAIL: anything else; "
        "the random operators' cases (Bernoulli, RandomUniformLike in its expanded form) fail "
        "for every engine, since no two share a generator (mxc's draws are checked by their "
        "distribution in `test/onnx/random-ops.test`)."
        % (RTOL, ATOL),
        "",
        how + " `test/onnx/conformance.test` (lit) runs only the cases of "
        "`test/onnx/baseline.txt` with `--only-baseline --check-baseline`; after a full run, "
        "`--update-baseline` records the new passes. " + modes +
        "`--cache DIR` reuses mxc results keyed by the mxc binary, the model%s and the input "
        "shapes; `--convert-only` checks that every `.pb` converts to `.npy`. The per-case list "
        "of the last run is in `test/onnx/%s` (%s `--results FILE`)."
        % (", the mode" if modes else "", "results.txt" if results_are_default else
           "results-plain.txt", "or" if results_are_default else "beside"),
        "",
        "## Summary",
        "",
    ]
    rows = [(s, counts(rs)) for s, rs in by_suite.items()]
    rows.append(("**all**", counts(results)))
    lines += table(rows, "suite")
    if plain:
        lines += ["", "Passed as a plain user (no `--input` for tensors, no `--bind`; "
                  "[Plain mode](#plain-mode)): %s." % ", ".join(
                      "%s %d/%d" % (s, counts([r for r in plain if r["suite"] == s])[0],
                                    len(rs)) for s, rs in by_suite.items())]
    if ort:
        lines += ["", "ONNX Runtime %s (npm `onnxruntime-node`, one thread) on the same cases, "
                  "compared the same way ([Beside ONNX Runtime](#beside-onnx-runtime)): %s." % (
                      ort_version(), ", ".join(
                          "%s %d/%d" % (s, counts([r for r in ort if r["suite"] == s])[0],
                                        len(rs)) for s, rs in by_suite.items()))]
    lines += ["", "## Supported operators", ""] + supported_ops_lines(results)
    for suite, rs in by_suite.items():
        per_op = collections.defaultdict(list)
        for r in rs:
            per_op[r["operator"]].append(r)
        lines += ["", "## %s" % suite, ""]
        # Node tests say which opsets they exercise; whole-model cases which ops they hold.
        if suite == "node":
            extra = lambda cases: ", ".join(sorted({str(r["opset"]) for r in cases},
                                                  key=lambda o: (len(o), o)))
        else:
            extra = lambda cases: ", ".join(cases[0]["ops"])
        rows = [(op, counts(per_op[op]), extra(per_op[op]))
                for op in sorted(per_op, key=str.lower)]
        rows.append(("**total**", counts(rs), ""))
        lines += table(rows, "operator" if suite == "node" else "case",
                       "opsets" if suite == "node" else "ops")
    if plain:
        lines += plain_section(args, by_suite, plain)
    if ort:
        lines += ort_section(by_suite, plain or results, "as a plain user" if plain else
                             "with --input/--bind", ort)
    # Passing cases are in the results file only; the report lists what needs work.
    others = [r for r in results if r["status"] != PASS]
    lines += ["", "<details><summary>Cases that do not pass (%d)</summary>" % len(others), "",
              "```"]
    lines += [result_line(r) for r in others]
    lines += ["```", "", "</details>", ""]
    return "\n".join(lines)


PLAIN_HOW = (
    "each case is compiled as a plain user would, `mxc model.onnx -o libmodel.so` with no "
    "`--input` for its tensor inputs and never `--bind`, and run with mxrun once per data set "
    "as in the default mode. Sequence and optional graph inputs still get their "
    "`--input NAME=seq(SHAPE,...)` / `--input NAME=none`: mxc has no other way to learn them. "
    "Cases feed shape-like inputs (a Reshape's shape, Pad's pads, Range's bounds, Squeeze's "
    "axes, ...) as graph inputs: they pass here only once mxc computes those at run time.")


def ort_version():
    try:
        with open(os.path.join(ORT_PEERS, "node_modules", "onnxruntime-node",
                               "package.json")) as f:
            return json.load(f)["version"]
    except (OSError, ValueError, KeyError):
        return "(version unknown)"


def ort_section(by_suite, mine, how, ort):
    """The report's comparison with ONNX Runtime: counts side by side, and the cases only one
    of the two passes."""
    ort_of = {(r["suite"], r["case"]): r for r in ort}
    mine_of = {(r["suite"], r["case"]): r for r in mine}
    lines = ["", "## Beside ONNX Runtime", "",
             "With `--modes ...,ort`, ONNX Runtime %s runs every case through its Node binding "
             "(`test/onnx/ort_case.js`; npm `onnxruntime-node` in `bench/.peers`, installed on "
             "first use) on the same `.npy` inputs, and its outputs are compared with the "
             "suite's exactly as mxc's are. Sequence and optional values, which the binding "
             "does not carry, count as unsupported there. mxc's column is %s." % (
                 ort_version(), how), "",
             "| suite | mxc | ONNX Runtime | both | only mxc | only ONNX Runtime | total |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    only_ort, totals = [], [0] * 6
    for s, rs in by_suite.items():
        row = [0] * 6
        for r in (mine_of[(x["suite"], x["case"])] for x in rs):
            o = ort_of.get((r["suite"], r["case"]))
            a, b = r["status"] == PASS, o is not None and o["status"] == PASS
            row[0] += a
            row[1] += b
            row[2] += a and b
            row[3] += a and not b
            row[4] += b and not a
            row[5] += 1
            if b and not a:
                only_ort.append(r)
        totals = [t + x for t, x in zip(totals, row)]
        lines.append("| %s | %s |" % (s, " | ".join(str(x) for x in row)))
    lines.append("| **all** | %s |" % " | ".join("**%d**" % x for x in totals))
    lines += ["", "### Passing with ONNX Runtime, not with mxc %s (%d)" % (how, len(only_ort)),
              ""]
    lines += ["- `%s/%s`: %s" % (r["suite"], r["case"], r["reason"]) for r in only_ort]
    return lines


def plain_results_path(results_path):
    """Where the plain mode's per-case list goes: results.txt -> results-plain.txt."""
    root, ext = os.path.splitext(results_path)
    return root + "-plain" + ext


def reason_kind(reason):
    """A reason with its case-specific names and numbers blanked, so that the same cause in
    different cases groups together."""
    kind = re.sub(r"node '[^']*' \([\w.]+, opset \d+\): ", "", reason)
    kind = re.sub(r"(compile-time constants?) \(.*?\)", r"\1", kind)  # the --bind hint
    kind = re.sub(r"'[^']*'", "'…'", kind)
    kind = re.sub(r"\b\d+(x\d+)*\b", "N", kind)
    kind = re.sub(r"^test_data_set_N: ", "", kind)
    return kind if len(kind) <= 140 else kind[:140] + " ..."


def plain_section(args, by_suite, plain):
    """The report's plain-mode section: its counts beside the default mode's, and the cases
    that pass by default but not as a plain user, by operator and by cause."""
    plain_of = {(r["suite"], r["case"]): r for r in plain}
    lines = ["", "## Plain mode", "",
             "With `--modes default,plain`, " + PLAIN_HOW + " The per-case list is in "
             "`test/onnx/results-plain.txt` (beside `--results FILE`).", "",
             "| suite | passed with --input/--bind | passed as a plain user | failed (plain) | "
             "unsupported (plain) | total |",
             "|---|---:|---:|---:|---:|---:|"]
    everything = []
    for s, rs in list(by_suite.items()) + [("**all**", None)]:
        rs = rs if rs is not None else everything
        ps = [plain_of[(r["suite"], r["case"])] for r in rs]
        p, f, u, n = counts(ps)
        lines.append("| %s | %d | %d | %d | %d | %d |" % (s, counts(rs)[0], p, f, u, n))
        if s != "**all**":
            everything += rs
    lost = [(r, plain_of[(r["suite"], r["case"])]) for r in everything
            if r["status"] == PASS and plain_of[(r["suite"], r["case"])]["status"] != PASS]
    gained = [p for r, p in ((r, plain_of[(r["suite"], r["case"])]) for r in everything)
              if r["status"] != PASS and p["status"] == PASS]
    lines += ["", "### Passing with --input/--bind, not as a plain user (%d)" % len(lost), ""]
    if lost:
        causes = collections.OrderedDict()
        for r, p in lost:
            causes.setdefault(reason_kind("%s %s" % (p["status"], p["reason"])), []).append(r)
        lines += ["By cause (names and numbers blanked):", "",
                  "| cases | plain outcome | operators |", "|---:|---|---|"]
        for k, rs in sorted(causes.items(), key=lambda kv: -len(kv[1])):
            ops = collections.Counter(r["operator"] if r["suite"] == "node" else
                                      "%s suite" % r["suite"] for r in rs)
            lines.append("| %d | `%s` | %s |" % (
                len(rs), k.replace("|", "\\|").replace("`", "'"),
                ", ".join("%s (%d)" % (op, n) if n > 1 else op
                          for op, n in sorted(ops.items(), key=lambda x: (-x[1], x[0])))))
        lines += ["", "By operator, with the message of the first case of each cause:", ""]
        per_op = collections.defaultdict(list)
        for r, p in lost:
            per_op[(r["suite"], r["operator"]) if r["suite"] == "node" else
                   (r["suite"], r["suite"])].append(p)
        for (suite, op) in sorted(per_op, key=lambda k: (SUITES.index(k[0]), k[1].lower())):
            ps = per_op[(suite, op)]
            label = op if suite == "node" else "%s suite" % suite
            lines.append("- **%s** (%d): %s" % (label, len(ps), ", ".join(
                "`%s`" % p["case"] for p in ps)))
            seen = collections.OrderedDict()
            for p in ps:
                seen.setdefault(reason_kind(p["reason"]), p)
            for p in list(seen.values())[:3]:
                lines.append("  - %s `%s` %s" % (p["status"], p["case"],
                                                  p["reason"].replace("`", "'")))
            if len(seen) > 3:
                lines.append("  - ... and %d more causes" % (len(seen) - 3))
    if gained:
        lines += ["", "### Passing only as a plain user (%d)" % len(gained), ""]
        lines += ["- `%s/%s`" % (p["suite"], p["case"]) for p in gained]
    return lines


def supported_ops_lines(results):
    """The operators of the `node` suite by outcome, as Markdown paragraphs."""
    per_op = collections.defaultdict(list)
    for r in results:
        if r["suite"] == "node":
            per_op[r["operator"]].append(r)
    full, partial, none = [], [], []
    for op in sorted(per_op, key=str.lower):
        passed, _, _, total = counts(per_op[op])
        if passed == total:
            full.append(op)
        elif passed:
            partial.append("%s (%d/%d)" % (op, passed, total))
        else:
            none.append(op)
    return ["Every case passes (%d): %s." % (len(full), ", ".join(full)), "",
            "Some cases pass, passed/total (%d): %s." % (len(partial), ", ".join(partial)), "",
            "Not supported (%d): %s." % (len(none), ", ".join(none))]


def result_line(r):
    line = "%s/%s %s" % (r["suite"], r["case"], r["status"])
    return line + (" " + r["reason"] if r["reason"] else "")


def tool_version(mxc):
    rc, out, err, _ = run([mxc, "--version"], 30)
    text = (out + err).strip().splitlines()
    return text[0].strip() if rc == 0 and text else "unknown (mxc --version: %s)" % describe_rc(rc)


def resolve_tool(flag, path):
    found = shutil.which(path) if os.sep not in path else (path if os.path.isfile(path) else None)
    if not found or not os.access(found, os.X_OK):
        die("%s: not found or not executable: %s" % (flag, path))
    return os.path.abspath(found)


def parse_args(argv):
    p = argparse.ArgumentParser(
        description="Run the ONNX backend test data through mxc and mxrun.",
        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__.split("\n\n", 1)[1])
    p.add_argument("--mxc", default=os.path.join(REPO, "build", "bin", "mxc"))
    p.add_argument("--mxrun", default=os.path.join(REPO, "build", "bin", "mxrun"))
    p.add_argument("--data-dir", default=DEFAULT_DATA_DIR,
                   help="folder holding the suites (default: %(default)s)")
    p.add_argument("--suite", action="append", choices=SUITES,
                   help="suite to run (repeatable; default: all four)")
    p.add_argument("--filter", metavar="REGEX", help="only cases whose SUITE/CASE matches")
    p.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    p.add_argument("--workdir", help="scratch folder (default: a temporary one, removed)")
    p.add_argument("--keep", action="store_true", help="keep passing cases' files in --workdir")
    p.add_argument("--timeout", type=float, default=120, help="seconds per tool call")
    p.add_argument("--cache", metavar="DIR",
                   help="reuse mxc results keyed by the mxc binary, model, mode and input "
                        "shapes")
    p.add_argument("--report", default=os.path.join(REPO, "docs", "onnx-conformance.md"))
    p.add_argument("--results", default=os.path.join(HERE, "results.txt"),
                   help="per-case result list (default: %(default)s)")
    p.add_argument("--baseline", default=os.path.join(HERE, "baseline.txt"))
    p.add_argument("--only-baseline", action="store_true", help="run only the baseline's cases")
    p.add_argument("--check-baseline", action="store_true",
                   help="exit 1 if a baseline case does not pass")
    p.add_argument("--update-baseline", action="store_true",
                   help="rewrite the baseline's entries for the selected cases with the passes")
    p.add_argument("--min-pass", action="append", default=[], metavar="SUITE=N",
                   help="exit 1 unless SUITE has at least N passing cases")
    p.add_argument("--modes", default="default", metavar="MODE,...",
                   help="how to compile each case: default (--input and, when needed, --bind), "
                        "plain (as a plain user: no --input for tensors, no --bind), or both "
                        "(default,plain); default: %(default)s")
    p.add_argument("--convert-only", action="store_true",
                   help="only convert every input/output .pb and report what fails")
    p.add_argument("-v", "--verbose", action="store_true", help="print every case's result")
    args = p.parse_args(argv)
    args.suite = args.suite or list(SUITES)
    args.data_dir = os.path.abspath(args.data_dir)
    args.jobs = max(1, args.jobs)
    thresholds = {}
    for spec in args.min_pass:
        suite, _, n = spec.partition("=")
        if suite not in SUITES + ("all",) or not n.isdigit():
            die("--min-pass %s: expected SUITE=N with SUITE one of %s or all"
                % (spec, ", ".join(SUITES)))
        thresholds[suite] = int(n)
    args.min_pass = thresholds
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    for m in modes:
        if m not in MODES:
            die("--modes %s: expected a comma-separated list of %s"
                % (args.modes, ", ".join(MODES)))
    args.modes = [m for m in MODES if m in modes]
    if not args.modes:
        die("--modes: no mode given")
    if args.modes == ["ort"]:
        die("--modes ort compares with mxc's results: add default or plain")
    if "default" not in args.modes and (args.check_baseline or args.update_baseline or
                                         args.min_pass):
        die("--check-baseline, --update-baseline and --min-pass take the default "
            "mode's results: add it to --modes")
    return args


def main(argv):
    args = parse_args(argv)
    cmdline = " ".join(shlex.quote(a) for a in
                       ["test/onnx/conformance.py"] + [os.path.relpath(a, REPO)
                                                       if a.startswith(REPO + os.sep) else a
                                                       for a in argv])
    baseline = read_baseline(args.baseline)
    cases = select_cases(args, baseline)
    pool = concurrent.futures.ProcessPoolExecutor(max_workers=args.jobs)

    if args.convert_only:
        total, problems = 0, []
        for n, probs in pool.map(convert_case, [(None, s, d) for s, d in cases], chunksize=8):
            total += n
            problems += probs
        for kind, msg in problems:
            if kind == "error" or args.verbose:
                print("%s: %s" % ("not-npy" if kind == "not-npy" else "ERROR", msg))
        errors = sum(1 for k, _ in problems if k == "error")
        not_npy = sorted({m.split("/test_data_set_")[0] for k, m in problems if k == "not-npy"})
        print("converted %d values of %d cases: %d errors, %d values in %d cases not "
              "representable as .npy (sequences, optionals, strings; -v lists them)"
              % (total, len(cases), errors, len(problems) - errors, len(not_npy)))
        return 1 if errors else 0

    if "ort" in args.modes:
        sys.path.insert(0, os.path.join(REPO, "bench"))
        import bench_util
        bench_util.ensure_onnxruntime_node(ORT_PEERS)
        os.environ["NODE_PATH"] = os.path.join(ORT_PEERS, "node_modules")
    args.mxc = resolve_tool("--mxc", args.mxc)
    args.mxrun = resolve_tool("--mxrun", args.mxrun)
    with open(args.mxc, "rb") as f:
        args.mxc_digest = hashlib.sha256(f.read()).hexdigest()
    version = tool_version(args.mxc)
    if args.cache:
        args.cache = os.path.abspath(args.cache)
        os.makedirs(args.cache, exist_ok=True)
    temp = None
    if args.workdir:
        args.workdir = os.path.abspath(args.workdir)
        os.makedirs(args.workdir, exist_ok=True)
    else:
        temp = args.workdir = tempfile.mkdtemp(prefix="mxc-onnx-")

    start = time.monotonic()
    by_mode = {}
    try:
        for mode in args.modes:
            results = by_mode[mode] = []
            jobs = [(args, s, d, mode) for s, d in cases]
            tag = "" if mode == "default" else mode + ": "
            for r in pool.map(run_case, jobs):
                results.append(r)
                if args.verbose:
                    print(tag + result_line(r), flush=True)
                elif len(results) % 100 == 0:
                    print("... %s%d/%d cases, %.0f s" % (tag, len(results), len(jobs),
                                                         time.monotonic() - start),
                          file=sys.stderr, flush=True)
    finally:
        pool.shutdown()
        if temp:
            shutil.rmtree(temp, ignore_errors=True)
    wall = time.monotonic() - start

    # The default mode's results make the report's tables, the results file and the baseline;
    # the plain mode's go to its own section and FILE-plain.txt.
    results = by_mode.get("default", [])
    plain = by_mode.get("plain")
    ort = by_mode.get("ort")
    report = make_report(args, results or plain, cmdline, version, wall,
                         plain if results else None, ort)
    outputs = [(args.report, report)]
    if results:
        outputs.append((args.results, "\n".join(result_line(r) for r in results) + "\n"))
    if plain and args.results:
        outputs.append((plain_results_path(args.results),
                        "\n".join(result_line(r) for r in plain) + "\n"))
    if ort and args.results:
        root, ext = os.path.splitext(args.results)
        outputs.append((root + "-ort" + ext, "\n".join(result_line(r) for r in ort) + "\n"))
    for path, text in outputs:
        if path:
            os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
    # The console gets the summary tables, not the per-case list.
    print(report.split("\n<details>")[0].rstrip())
    print("\n%d cases in %.0f s (-j %d)" % (len(results or plain), wall, args.jobs) +
          (", %s (--modes %s)" % ({2: "twice", 3: "three times"}[len(args.modes)],
                               ",".join(args.modes)) if len(args.modes) > 1 else ""))

    status = 0
    by_name = {"%s/%s" % (r["suite"], r["case"]): r for r in results}
    if args.check_baseline:
        selected = {"%s/%s" % (s, os.path.basename(d)) for s, d in cases}
        lost = [n for n in baseline if n in selected and by_name[n]["status"] != PASS]
        missing = [n for n in baseline if n.split("/")[0] in args.suite and n not in selected
                   and not args.filter]
        for n in missing:
            print("warning: baseline case %s is not in %s" % (n, args.data_dir))
        if lost:
            print("\n%d baseline case(s) no longer pass:" % len(lost))
            for n in lost:
                print("  " + result_line(by_name[n]))
            status = 1
        else:
            print("baseline: all %d selected baseline cases pass"
                  % sum(1 for n in baseline if n in selected))
    for suite, need in args.min_pass.items():
        got = sum(1 for r in results if r["status"] == PASS and (suite == "all" or
                                                                 r["suite"] == suite))
        if got < need:
            print("min-pass: %s has %d passing cases, needs %d" % (suite, got, need))
            status = 1
    if args.update_baseline:
        kept = [n for n in baseline if n not in by_name]
        passed = [n for n, r in by_name.items() if r["status"] == PASS]
        write_baseline(args.baseline, kept + passed, cmdline)
        print("baseline: wrote %d cases to %s" % (len(set(kept + passed)), args.baseline))
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
