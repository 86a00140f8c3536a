# SPDX-License-Identifier: Apache-2.0
# ops-reference.test's cases: ONNX models beyond the backend suite's, built with
# onnx.helper, compiled with mxc (as a plain user: every input a graph input, and again
# with the shape-like ones as initializers where that takes another code path), run with
# mxrun and matched against independent references: NumPy's einsum and argsort, ONNX's
# own Resize reference (onnx.backend.test.case.node.resize.interpolate_nd), PyTorch's
# bidirectional GRU / LSTM on packed sequences of different lengths, PyTorch's
# grid_sample.
# Usage: ops-reference.test.py MXC MXRUN WORKDIR
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from onnx.backend.test.case.node import resize as resize_ref

MXC, MXRUN, WORK = sys.argv[1:4]
rng = np.random.default_rng(0)
failures = []

NP_TO_ONNX = {np.float32: TensorProto.FLOAT, np.int32: TensorProto.INT32,
              np.int64: TensorProto.INT64, np.bool_: TensorProto.BOOL}


def value_info(name, arr):
    return helper.make_tensor_value_info(name, NP_TO_ONNX[arr.dtype.type], arr.shape)


def check(name, nodes, inputs, expected, initializers=(), opset=13, tol=1e-5,
          declared=True):
    """Builds a one-graph model (its outputs' extents declared, or with `declared`
    False named only), compiles and runs it, compares every output."""
    d = os.path.join(WORK, name)
    os.makedirs(d, exist_ok=True)
    graph = helper.make_graph(
        nodes, name, [value_info(k, v) for k, v in inputs.items()],
        [value_info(k, v) if declared else
         helper.make_tensor_value_info(k, NP_TO_ONNX[v.dtype.type],
                                       ["%s_%d" % (k, i) for i in range(v.ndim)])
         for k, v in expected.items()],
        [numpy_helper.from_array(v, k) for k, v in initializers])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    onnx.checker.check_model(model)
    path = os.path.join(d, "model.onnx")
    onnx.save(model, path)
    lib = os.path.join(d, "libmodel.so")
    r = subprocess.run([MXC, path, "-o", lib], capture_output=True, text=True)
    if r.returncode:
        failures.append("%s: mxc: %s" % (name, r.stderr.strip()))
        return
    cmd = [MXRUN, lib, "--output-dir", os.path.join(d, "out")]
    for k, v in inputs.items():
        p = os.path.join(d, k + ".npy")
        np.save(p, v)
        cmd += ["--input", "%s=%s" % (k, p)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        failures.append("%s: mxrun: %s" % (name, r.stderr.strip()))
        return
    for k, want in expected.items():
        got = np.load(os.path.join(d, "out", k + ".npy"))
        if got.shape != want.shape or got.dtype != want.dtype:
            failures.append("%s: %s is %s%s, expected %s%s" % (
                name, k, got.dtype, got.shape, want.dtype, want.shape))
        elif not np.allclose(got, want, rtol=tol, atol=tol):
            failures.append("%s: %s differs by %.3g" % (
                name, k, float(np.max(np.abs(got.astype(np.float64) - want)))))
    print("checked", name)


# Einsum, against NumPy.
for i, (eq, shapes) in enumerate([
        ("...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 6)]),  # broadcast batch
        ("ij,jk,kl->il", [(3, 4), (4, 5), (5, 2)]),           # three operands
        ("ii", [(4, 4)]),                                      # implicit trace
        ("bij->", [(2, 3, 4)]),                                # total sum
        ("i,j", [(3,), (4,)]),                                 # implicit outer
        ("bhqd,bhkd->bhqk", [(2, 3, 5, 8), (2, 3, 7, 8)]),     # attention scores
        ("iij->ji", [(3, 3, 2)]),                              # diagonal, transposed
]):
    arrs = {"x%d" % k: rng.standard_normal(s).astype(np.float32)
            for k, s in enumerate(shapes)}
    want = np.einsum(eq, *arrs.values()).astype(np.float32)
    check("einsum%d" % i, [helper.make_node("Einsum", list(arrs), ["y"], equation=eq)],
          arrs, {"y": np.asarray(want)}, opset=12, tol=1e-4)

# Shape arithmetic on constants folded on the host (a Reshape's target from a
# ReduceMax of a constant, cast), so that an output without a declared shape compiles.
x = rng.standard_normal((2, 9)).astype(np.float32)
check("folded_reduce_max", [
    helper.make_node("ReduceMax", ["dims"], ["longest"], axes=[0], keepdims=0),
    helper.make_node("Reshape", ["x", "longest"], ["y"])],
    {"x": x}, {"y": x.reshape(3, 6)},
    initializers=[("dims", np.array([[2, 6], [3, 4]], np.int64))], declared=False)

# If with a run-time condition: both branches run, the outputs picked by it.
x = rng.standard_normal((2, 3)).astype(np.float32)
branch = lambda name, op: helper.make_graph(
    [helper.make_node(op, ["x", "two"], [name + "_y"])], name, [],
    [helper.make_tensor_value_info(name + "_y", TensorProto.FLOAT, [2, 3])])
for flag in (True, False):
    check("if_runtime_%s" % str(flag).lower(), [helper.make_node(
              "If", ["cond"], ["y"], then_branch=branch("then", "Mul"),
              else_branch=branch("else", "Add"))],
          {"x": x, "cond": np.array(flag)}, {"y": x * 2 if flag else x + 2},
          initializers=[("two", np.array(2, np.float32))])

# TopK, against NumPy's stable sort (ties: the lower index first).
x = rng.integers(-3, 4, size=(4, 9)).astype(np.int32)
order = np.argsort(x, axis=1, kind="stable")[:, :5]
check("topk_int_smallest",
      [helper.make_node("TopK", ["x", "k"], ["v", "i"], axis=1, largest=0)],
      {"x": x}, {"v": np.take_along_axis(x, order, 1), "i": order.astype(np.int64)},
      initializers=[("k", np.array([5], np.int64))])
x = rng.standard_normal((6, 3)).astype(np.float32)
order = np.argsort(-x, axis=0, kind="stable")
check("topk_float_all",
      [helper.make_node("TopK", ["x", "k"], ["v", "i"], axis=0)],
      {"x": x}, {"v": np.take_along_axis(x, order, 0), "i": order.astype(np.int64)},
      initializers=[("k", np.array([6], np.int64))])

# Det, against NumPy: a batch of 5x5 matrices (pivoting needed: a zero leading entry),
# and a singular one.
x = rng.standard_normal((2, 3, 5, 5)).astype(np.float32)
x[0, 0, 0, 0] = 0
x[1, 2, 4] = x[1, 2, 1] * 2  # two dependent rows
check("det_batch", [helper.make_node("Det", ["x"], ["y"])], {"x": x},
      {"y": np.linalg.det(x.astype(np.float64)).astype(np.float32)}, tol=1e-4)

# DFT and STFT, against NumPy's FFT: a complex signal along axis 2 zero-padded to 12
# points, its inverse, a one-sided real one; frames of a windowed signal.
x = rng.standard_normal((2, 3, 9, 2)).astype(np.float32)
z = x[..., 0] + 1j * x[..., 1]
for name, attrs, want in [
        ("dft_padded", {"axis": 2}, np.fft.fft(z, n=12, axis=2)),
        ("dft_inverse", {"axis": 2, "inverse": 1}, np.fft.ifft(z, n=12, axis=2))]:
    check(name, [helper.make_node("DFT", ["x", "n"], ["y"], **attrs)], {"x": x},
          {"y": np.stack([want.real, want.imag], -1).astype(np.float32)},
          initializers=[("n", np.array(12, np.int64))], opset=17, tol=1e-4)
x = rng.standard_normal((2, 10, 1)).astype(np.float32)
want = np.fft.rfft(x[..., 0], axis=1)
check("dft_onesided", [helper.make_node("DFT", ["x"], ["y"], onesided=1)], {"x": x},
      {"y": np.stack([want.real, want.imag], -1).astype(np.float32)}, opset=17, tol=1e-4)
x = rng.standard_normal((1, 40, 1)).astype(np.float32)
window = np.hanning(10).astype(np.float32)
frames = np.stack([x[0, f * 3:f * 3 + 10, 0] * window for f in range((40 - 10) // 3 + 1)])
want = np.fft.rfft(frames, axis=1)[None]
check("stft_window", [helper.make_node("STFT", ["x", "step", "w"], ["y"])],
      {"x": x, "w": window},
      {"y": np.stack([want.real, want.imag], -1).astype(np.float32)},
      initializers=[("step", np.array(3, np.int64))], opset=17, tol=1e-4)

# MelWeightMatrix, against ONNX's reference formula (its backend test's), at other sizes
# and rates than the suite's case.
def mel_weights(mels, dft, rate, low, high):
    edges = np.arange(0, mels + 2)
    to_mel = lambda f: 2595 * np.log10(1 + f / 700)
    step = (to_mel(high) - to_mel(low)) / edges.shape[0]
    edges = 700 * (np.power(10, (edges * step + to_mel(low)) / 2595) - 1)
    edges = (((dft + 1) * edges) // rate).astype(int)
    out = np.zeros((dft // 2 + 1, mels))
    for i in range(mels):
        lo, mid, hi = edges[i], edges[i + 1], edges[i + 2]
        if mid == lo:
            out[mid, i] = 1
        else:
            for j in range(lo, mid + 1):
                out[j, i] = (j - lo) / (mid - lo)
        if hi > mid:
            for j in range(mid, hi):
                out[j, i] = (hi - j) / (hi - mid)
    return out.astype(np.float32)


check("melweightmatrix", [helper.make_node(
          "MelWeightMatrix", ["mels", "dft", "rate", "low", "high"], ["y"])],
      {}, {"y": mel_weights(10, 64, 16000, 100.0, 7000.0)},
      initializers=[("mels", np.array(10, np.int64)), ("dft", np.array(64, np.int64)),
                    ("rate", np.array(16000, np.int64)),
                    ("low", np.array(100, np.float32)),
                    ("high", np.array(7000, np.float32))], opset=17, tol=1e-5)

# Resize, against ONNX's reference, with constant scales or sizes (the taps computed
# on the host) and with scales fed at run time (the same formulas as mx ops).
for i, (mode, coord, extra, shape, scales) in enumerate([
        ("linear", "align_corners", {}, (1, 2, 5, 7), [1, 1, 1.7, 0.6]),
        ("cubic", "half_pixel", {"exclude_outside": 1, "cubic_coeff_a": -0.5},
         (2, 1, 6, 4), [1, 1, 0.7, 2.5]),
        ("nearest", "pytorch_half_pixel", {"nearest_mode": "round_prefer_ceil"},
         (3, 8), [0.67, 1.25]),
        ("linear", "tf_crop_and_resize", {"extrapolation_value": 7.0},
         (1, 1, 5, 5), [1, 1, 1.2, 0.8]),
        ("nearest", "asymmetric", {"nearest_mode": "ceil"}, (2, 3, 4), [1, 2.5, 0.5]),
]):
    x = rng.standard_normal(shape).astype(np.float32)
    s = np.array(scales, np.float32)
    roi = np.array([0] * len(shape) + [1] * len(shape), np.float32)
    if coord == "tf_crop_and_resize":
        roi = np.array([0, 0, -0.2, 0.3, 1, 1, 0.9, 1.3], np.float32)
    kw = dict(mode=mode, coordinate_transformation_mode=coord, **extra)
    coeffs = {"nearest": lambda r: resize_ref.nearest_coeffs(
                  r, extra.get("nearest_mode", "round_prefer_floor")),
              "linear": resize_ref.linear_coeffs,
              "cubic": lambda r: resize_ref.cubic_coeffs(r, extra.get("cubic_coeff_a", -0.75))}
    ref_kw = {k: v for k, v in extra.items() if k in ("exclude_outside", "extrapolation_value")}
    sizes = np.floor(np.array(shape) * s.astype(np.float64) *
                     (roi[len(shape):] - roi[:len(shape)])).astype(np.int64)
    if coord == "tf_crop_and_resize":  # the reference takes sizes here
        want = resize_ref.interpolate_nd(x, coeffs[mode], output_size=sizes, roi=roi,
                                         coordinate_transformation_mode=coord, **ref_kw)
        node_inputs, feeds, inits = ["x", "roi", "", "sizes"], {"x": x}, [
            ("roi", roi), ("sizes", sizes)]
    else:
        want = resize_ref.interpolate_nd(x, coeffs[mode], scale_factors=s, roi=roi,
                                         coordinate_transformation_mode=coord, **ref_kw)
        node_inputs, feeds, inits = ["x", "", "scales"], {"x": x}, [("scales", s)]
    want = want.astype(np.float32)
    node = helper.make_node("Resize", node_inputs, ["y"], **kw)
    check("resize%d_const" % i, [node], feeds, {"y": want}, initializers=inits, tol=1e-4)
    if coord != "tf_crop_and_resize":
        check("resize%d_runtime" % i, [node], {"x": x, "scales": s}, {"y": want}, tol=1e-4)

# Bidirectional LSTM and GRU with sequence lengths, against PyTorch on packed
# sequences (ONNX's gate order i,o,f,c and z,r,h from PyTorch's i,f,g,o and r,z,n; the
# GRU's candidate as PyTorch computes it: linear_before_reset).
import torch  # noqa: E402

torch.manual_seed(0)
T, B, I, H = 7, 3, 5, 4
lengths = np.array([7, 2, 5], np.int32)
for cell in ("LSTM", "GRU"):
    net = getattr(torch.nn, cell)(I, H, bidirectional=True).eval()
    order = [0, 3, 1, 2] if cell == "LSTM" else [1, 0, 2]

    def onnx_weight(name):
        w = [getattr(net, name + sfx).detach().numpy() for sfx in ("_l0", "_l0_reverse")]
        return np.stack([np.concatenate([x[g * H:(g + 1) * H] for g in order]) for x in w])

    W, R = onnx_weight("weight_ih"), onnx_weight("weight_hh")
    Bias = np.concatenate([onnx_weight("bias_ih"), onnx_weight("bias_hh")], axis=1)
    x = rng.standard_normal((T, B, I)).astype(np.float32)
    h0 = rng.standard_normal((2, B, H)).astype(np.float32)
    packed = torch.nn.utils.rnn.pack_padded_sequence(
        torch.from_numpy(x), torch.from_numpy(lengths.astype(np.int64)), enforce_sorted=False)
    with torch.no_grad():
        if cell == "LSTM":
            c0 = rng.standard_normal((2, B, H)).astype(np.float32)
            out, (hT, cT) = net(packed, (torch.from_numpy(h0), torch.from_numpy(c0)))
        else:
            out, hT = net(packed, torch.from_numpy(h0))
    y, _ = torch.nn.utils.rnn.pad_packed_sequence(out, total_length=T)
    want = {"Y": y.numpy().reshape(T, B, 2, H).transpose(0, 2, 1, 3).copy(),
            "Y_h": hT.numpy()}
    feeds = {"X": x, "W": W, "R": R, "B": Bias, "sequence_lens": lengths, "initial_h": h0}
    outputs = ["Y", "Y_h"]
    if cell == "LSTM":
        feeds["initial_c"] = c0
        want["Y_c"] = cT.numpy()
        outputs.append("Y_c")
        attrs = {}
    else:
        attrs = {"linear_before_reset": 1}
    node = helper.make_node(cell, list(feeds), outputs, hidden_size=H,
                            direction="bidirectional", **attrs)
    check("%s_bidirectional_lengths" % cell.lower(), [node], feeds, want, opset=14,
          tol=1e-5)

# GridSample, against PyTorch's grid_sample, the grid reaching past the input's edges.
for i, (mode, padding, align) in enumerate([
        ("bicubic", "reflection", 0), ("bilinear", "border", 1), ("nearest", "zeros", 0),
        ("bicubic", "zeros", 1), ("bilinear", "reflection", 1)]):
    x = rng.standard_normal((2, 3, 5, 6)).astype(np.float32)
    grid = rng.uniform(-1.4, 1.4, (2, 4, 7, 2)).astype(np.float32)
    with torch.no_grad():
        want = torch.nn.functional.grid_sample(
            torch.from_numpy(x), torch.from_numpy(grid), mode=mode, padding_mode=padding,
            align_corners=bool(align)).numpy()
    check("gridsample%d" % i, [helper.make_node("GridSample", ["x", "grid"], ["y"], mode=mode,
                                                padding_mode=padding, align_corners=align)],
          {"x": x, "grid": grid}, {"y": want}, opset=16, tol=1e-4)

if failures:
    sys.exit("\n".join(failures))
print("all cases match")
