# SPDX-License-Identifier: Apache-2.0
# The models of recurrent-zero-state.test: a one-layer LSTM, GRU (both forms of its
# candidate gate) and RNN over 3 steps, with their initial states absent, constant
# zeros, or given as inputs; and their outputs recomputed with NumPy.
#   recurrent-zero-state.test.py make DIR   writes DIR/<name>.onnx and inputs
#   recurrent-zero-state.test.py check DIR  compares DIR/<name>/*.npy with NumPy
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

SEQ, BATCH, INPUT, HIDDEN = 3, 2, 5, 4
GATES = {"LSTM": 4, "GRU": 3, "RNN": 1}
CASES = [  # name, op, initial state, extra attributes
    ("lstm_absent", "LSTM", "absent", {}),
    ("lstm_zeros", "LSTM", "zeros", {}),
    ("lstm_input", "LSTM", "input", {}),
    ("gru_zeros", "GRU", "zeros", {}),
    ("gru_lbr_zeros", "GRU", "zeros", {"linear_before_reset": 1}),
    ("rnn_absent", "RNN", "absent", {}),
]


def weights(op, seed):
    rng = np.random.default_rng(seed)
    g = GATES[op]
    w = rng.uniform(-0.5, 0.5, (1, g * HIDDEN, INPUT)).astype(np.float32)
    r = rng.uniform(-0.5, 0.5, (1, g * HIDDEN, HIDDEN)).astype(np.float32)
    b = rng.uniform(-0.5, 0.5, (1, 2 * g * HIDDEN)).astype(np.float32)
    x = rng.uniform(-1, 1, (SEQ, BATCH, INPUT)).astype(np.float32)
    h0 = rng.uniform(-1, 1, (1, BATCH, HIDDEN)).astype(np.float32)
    c0 = rng.uniform(-1, 1, (1, BATCH, HIDDEN)).astype(np.float32)
    return w, r, b, x, h0, c0


def make(out):
    for seed, (name, op, state, attrs) in enumerate(CASES):
        w, r, b, x, h0, c0 = weights(op, seed)
        inits = [numpy_helper.from_array(a, n) for a, n in ((w, "W"), (r, "R"), (b, "B"))]
        inputs = [helper.make_tensor_value_info("X", TensorProto.FLOAT, x.shape)]
        names = ["X", "W", "R", "B", ""]
        if state == "zeros":
            zero = np.zeros((1, BATCH, HIDDEN), np.float32)
            inits += [numpy_helper.from_array(zero, "h0"), numpy_helper.from_array(zero, "c0")]
        elif state == "input":
            inputs += [helper.make_tensor_value_info(n, TensorProto.FLOAT, h0.shape)
                       for n in ("h0", "c0")]
            np.save(f"{out}/{name}_h0.npy", h0)
            np.save(f"{out}/{name}_c0.npy", c0)
        if state != "absent":
            names += ["h0"] + (["c0"] if op == "LSTM" else [])
        node = helper.make_node(op, names, ["Y", "Yh"], hidden_size=HIDDEN, **attrs)
        outputs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in ("Y", "Yh")]
        graph = helper.make_graph([node], name, inputs, outputs, inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
        onnx.save(model, f"{out}/{name}.onnx")
        np.save(f"{out}/{name}_x.npy", x)


def sigmoid(v):
    return 1 / (1 + np.exp(-v))


def reference(op, state, attrs, w, r, b, x, h0, c0):
    g = GATES[op]
    h = h0[0] if state == "input" else np.zeros((BATCH, HIDDEN))
    c = c0[0] if state == "input" else np.zeros((BATCH, HIDDEN))
    w, r, wb, rb = w[0], r[0], b[0, :g * HIDDEN], b[0, g * HIDDEN:]
    ys = []
    for t in range(SEQ):
        xw = x[t] @ w.T + wb
        if op == "LSTM":
            a = xw + h @ r.T + rb
            i, o, f, cc = np.split(a, 4, axis=1)
            c = sigmoid(f) * c + sigmoid(i) * np.tanh(cc)
            h = sigmoid(o) * np.tanh(c)
        elif op == "GRU":
            z = sigmoid(xw[:, :HIDDEN] + h @ r[:HIDDEN].T + rb[:HIDDEN])
            rr = sigmoid(xw[:, HIDDEN:2 * HIDDEN] + h @ r[HIDDEN:2 * HIDDEN].T
                         + rb[HIDDEN:2 * HIDDEN])
            rh, rbh = r[2 * HIDDEN:], rb[2 * HIDDEN:]
            if attrs.get("linear_before_reset"):
                n = np.tanh(xw[:, 2 * HIDDEN:] + rr * (h @ rh.T + rbh))
            else:
                n = np.tanh(xw[:, 2 * HIDDEN:] + (rr * h) @ rh.T + rbh)
            h = (1 - z) * n + z * h
        else:
            h = np.tanh(xw + h @ r.T + rb)
        ys.append(h)
    return np.stack(ys)[:, None], h[None]


def check(out):
    for seed, (name, op, state, attrs) in enumerate(CASES):
        y, yh = reference(op, state, attrs, *[a.astype(np.float64) for a in weights(op, seed)])
        got_y, got_yh = (np.load(f"{out}/{name}/{n}.npy") for n in ("Y", "Yh"))
        err = max(np.abs(got_y - y).max(), np.abs(got_yh - yh).max())
        assert err < 1e-5, f"{name}: off by {err}"
    print(f"{len(CASES)} recurrent layers match NumPy")


if __name__ == "__main__":
    {"make": make, "check": check}[sys.argv[1]](sys.argv[2])
