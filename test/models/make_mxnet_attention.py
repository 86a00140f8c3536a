# SPDX-License-Identifier: Apache-2.0
# An MXNet 1.x-style attention as its symbol JSON writes it: batch_dot(q, k,
# transpose_b=True), _mul_scalar by 1/sqrt(d), softmax over the keys, batch_dot with v
# (q, k, v inputs of (heads, seq, d) with seq 13 and 21 keys: partial blocks), with
# seeded inputs and the NumPy float64 result as the reference; and the same attention
# through MXNet 1.x's interleaved_matmul_selfatt_qk / _valatt (GluonNLP's BERT).
#
#   python3 make_mxnet_attention.py --out-dir DIR
import argparse
import json
import math
import os

import numpy as np

HEADS, SQ, SK, D, DV = 3, 13, 21, 16, 8
# The interleaved form's (GluonNLP BERT's): seq, batch, heads, depth.
ISEQ, IBATCH, IHEADS, ID = 13, 2, 3, 8


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out-dir", required=True)
    a = p.parse_args()
    os.makedirs(a.out_dir, exist_ok=True)
    var = lambda name: {"op": "null", "name": name, "inputs": []}
    nodes = [var("q"), var("k"), var("v"),
             {"op": "batch_dot", "name": "scores", "attrs": {"transpose_b": "True"},
              "inputs": [[0, 0, 0], [1, 0, 0]]},
             {"op": "_mul_scalar", "name": "scaled",
              "attrs": {"scalar": repr(1 / math.sqrt(D))}, "inputs": [[3, 0, 0]]},
             {"op": "softmax", "name": "att", "attrs": {"axis": "-1"},
              "inputs": [[4, 0, 0]]},
             {"op": "batch_dot", "name": "out", "inputs": [[5, 0, 0], [2, 0, 0]]}]
    graph = {"nodes": nodes, "arg_nodes": [0, 1, 2], "heads": [[6, 0, 0]],
             "attrs": {"mxnet_version": ["int", 10900]}}
    with open(os.path.join(a.out_dir, "attention-symbol.json"), "w") as f:
        json.dump(graph, f)
    rng = np.random.default_rng(5)
    q, k, v = (rng.normal(0, 1, s).astype(np.float32)
               for s in [(HEADS, SQ, D), (HEADS, SK, D), (HEADS, SK, DV)])
    s = q.astype(np.float64) @ k.transpose(0, 2, 1) / math.sqrt(D)
    e = np.exp(s - s.max(-1, keepdims=True))
    out = (e / e.sum(-1, keepdims=True)) @ v
    for name, x in [("q", q), ("k", k), ("v", v), ("out", out.astype(np.float32))]:
        np.save(os.path.join(a.out_dir, name + ".npy"), x)

    # _contrib_interleaved_matmul_selfatt_qk / _valatt over one (seq, batch,
    # heads * 3 * d) input, with softmax between them.
    nodes = [var("qkv"),
             {"op": "_contrib_interleaved_matmul_selfatt_qk", "name": "scores",
              "attrs": {"heads": str(IHEADS)}, "inputs": [[0, 0, 0]]},
             {"op": "softmax", "name": "att", "attrs": {"axis": "-1"},
              "inputs": [[1, 0, 0]]},
             {"op": "_contrib_interleaved_matmul_selfatt_valatt", "name": "out",
              "attrs": {"heads": str(IHEADS)}, "inputs": [[0, 0, 0], [2, 0, 0]]}]
    graph = {"nodes": nodes, "arg_nodes": [0], "heads": [[3, 0, 0]],
             "attrs": {"mxnet_version": ["int", 10900]}}
    with open(os.path.join(a.out_dir, "interleaved-symbol.json"), "w") as f:
        json.dump(graph, f)
    qkv = rng.normal(0, 1, (ISEQ, IBATCH, IHEADS * 3 * ID)).astype(np.float32)
    # MXNet's definitions: reshape to (seq, batch, heads, 3, d), take the
    # projection, (batch * heads, seq, d); q / sqrt(d) . k^T; att . v back to
    # (seq, batch, heads * d).
    t = qkv.astype(np.float64).reshape(ISEQ, IBATCH, IHEADS, 3, ID)
    proj = lambda j: t[:, :, :, j, :].transpose(1, 2, 0, 3).reshape(-1, ISEQ, ID)
    s = (proj(0) / math.sqrt(ID)) @ proj(1).transpose(0, 2, 1)
    e = np.exp(s - s.max(-1, keepdims=True))
    o = (e / e.sum(-1, keepdims=True)) @ proj(2)
    o = o.reshape(IBATCH, IHEADS, ISEQ, ID).transpose(2, 0, 1, 3).reshape(ISEQ, IBATCH, -1)
    np.save(os.path.join(a.out_dir, "qkv.npy"), qkv)
    np.save(os.path.join(a.out_dir, "interleaved_out.npy"), o.astype(np.float32))


if __name__ == "__main__":
    main()
