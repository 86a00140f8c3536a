#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
#
# Writes the end-to-end fixtures under test/e2e/{ops,models,errors}/: MXNet symbol JSON, .params,
# inputs and reference outputs computed with NumPy from MXNet's documented semantics, never with
# mxc. Every file in those folders is generated; regenerate them all with
#
#     /usr/bin/python3 test/e2e/gen_fixtures.py
#
# This file holds the case builder and the cases; mxnet_reference.py, beside it, holds what stands
# in for MXNet (its symbol JSON and .params formats, the NumPy operator references and their
# PyTorch cross-check). The output is deterministic (each case seeds its own generator from its
# name). When PyTorch is importable the NumPy convolution, pooling, LRN, BatchNorm and activation
# references are cross-checked against it; PyTorch never produces a reference.
"""Generate the mxc end-to-end fixtures (see the header comment)."""

import argparse
import json
import os
import re
import shutil
import struct
import sys
import zlib

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)  # mxnet_reference.py, whatever the working directory or importer
from mxnet_reference import (  # noqa: E402
    MXNET_VERSION, NUM_OUTPUTS, act, batch_norm, conv_nd, cross_check_with_torch,
    dump_like_mxnet, fully_connected, log_softmax, lrn, params_bytes, pool_nd,
    reduce_all_shape, reshape_target, softmax)

# ----------------------------------------------------------------------------------------------
# Case builder
# ----------------------------------------------------------------------------------------------

C_IDENT = re.compile(r"^[a-z_][a-z0-9_]*$")


class Sym:
    def __init__(self, nid, idx=0):
        self.nid, self.idx = nid, idx


class Case:
    """One fixture folder: a graph plus its inputs, params and references (or expected error)."""

    def __init__(self, group, name, description, atol=1e-5, rtol=1e-4):
        assert C_IDENT.match(name), name
        self.group, self.name, self.description = group, name, description
        self.atol, self.rtol = atol, rtol
        self.rng = np.random.default_rng(zlib.crc32(name.encode()))
        self.nodes, self.inputs, self.params, self.heads, self.refs = [], [], [], [], []
        self.style = "current"          # "attr": nodes use "attr"; "param": pre-0.9 layout
        self.mxnet_version = MXNET_VERSION
        self.params_format = "v2"
        self.params_hook = None          # bytes -> bytes, to corrupt the .params file
        self.symbol_hook = None          # str -> str, to corrupt symbol.json
        self.expect_error = None         # list of keywords mxc's stderr must contain

    # random data ---------------------------------------------------------------------------
    def randn(self, *shape, scale=1.0):
        return (self.rng.standard_normal(shape) * scale).astype(np.float32)

    def uniform(self, lo, hi, *shape):
        return self.rng.uniform(lo, hi, shape).astype(np.float32)

    # graph ---------------------------------------------------------------------------------
    def _node(self, op, name, attrs, inputs, num_outputs=1):
        self.nodes.append(dict(op=op, name=name, attrs=dict(attrs or {}),
                               inputs=[(s.nid, s.idx) for s in inputs],
                               num_outputs=num_outputs))
        return len(self.nodes) - 1

    def var(self, name, attrs=None):
        return Sym(self._node("null", name, attrs, []))

    def input(self, name, value):
        """A graph input; returns (symbol, float64 value for the reference)."""
        value = np.asarray(value, dtype=np.float32)
        self.inputs.append((name, value))
        return self.var(name), value.astype(np.float64)

    def param(self, name, value, aux=False, store_dtype=None, in_graph=True):
        """A weight stored in model.params; the reference sees what mxc will see: the stored
        value converted to float32."""
        stored = np.asarray(value).astype(store_dtype or np.float32)
        self.params.append((("aux:" if aux else "arg:") + name, stored))
        seen = stored.astype(np.float32).astype(np.float64)
        return (self.var(name) if in_graph else None), seen

    def op(self, op, name, inputs, attrs=None, num_outputs=None):
        n = num_outputs or NUM_OUTPUTS.get(op, 1)
        nid = self._node(op, name, attrs, inputs, n)
        if num_outputs:
            return [Sym(nid, i) for i in range(num_outputs)]
        return Sym(nid)

    def output(self, sym, ref, multi=False):
        node = self.nodes[sym.nid]
        suffix = "_output%d" % sym.idx if multi else "_output"
        self.heads.append((sym.nid, sym.idx))
        self.refs.append((node["name"] + suffix, np.asarray(ref, dtype=np.float32)))

    # serialisation ---------------------------------------------------------------------------
    def symbol_json(self):
        nodes = []
        for nd in self.nodes:
            if self.style == "param":  # MXNet < 0.9: "param", [node, index] pairs
                j = {"op": nd["op"], "param": nd["attrs"], "name": nd["name"],
                     "inputs": [[a, b] for a, b in nd["inputs"]], "backward_source_id": -1}
            else:
                j = {"op": nd["op"], "name": nd["name"]}
                if nd["attrs"]:
                    j["attr" if self.style == "attr" else "attrs"] = nd["attrs"]
                j["inputs"] = [[a, b, 0] for a, b in nd["inputs"]]
            nodes.append(j)
        graph = {"nodes": nodes,
                 "arg_nodes": [i for i, nd in enumerate(self.nodes) if nd["op"] == "null"]}
        if self.style == "param":
            graph["heads"] = [[a, b] for a, b in self.heads]
        else:
            row, ptr = 0, [0]
            for nd in self.nodes:
                row += nd["num_outputs"]
                ptr.append(row)
            graph["node_row_ptr"] = ptr
            graph["heads"] = [[a, b, 0] for a, b in self.heads]
            graph["attrs"] = {"mxnet_version": ["int", self.mxnet_version]}
        return dump_like_mxnet(graph)

    def write(self, root):
        d = os.path.join(root, self.group, self.name)
        os.makedirs(d)
        text = self.symbol_json()
        if self.symbol_hook:
            text = self.symbol_hook(text)
        with open(os.path.join(d, "symbol.json"), "w") as f:
            f.write(text)
        if self.params:
            blob = params_bytes(self.params, self.params_format)
            if self.params_hook:
                blob = self.params_hook(blob)
            with open(os.path.join(d, "model.params"), "wb") as f:
                f.write(blob)
        meta = {"inputs": {n: list(v.shape) for n, v in self.inputs}}
        if self.expect_error is None:
            meta.update(atol=self.atol, rtol=self.rtol)
        meta["description"] = self.description
        meta["generated_by"] = "test/e2e/gen_fixtures.py"
        with open(os.path.join(d, "case.json"), "w") as f:
            json.dump(meta, f, indent=2)
            f.write("\n")
        for n, v in self.inputs:
            np.save(os.path.join(d, "in_%s.npy" % n), v)
        if self.expect_error is not None:
            with open(os.path.join(d, "expect_error.txt"), "w") as f:
                f.write("".join(k + "\n" for k in self.expect_error))
        else:
            assert self.refs, self.name
            for n, v in self.refs:
                assert np.all(np.isfinite(v)), (self.name, n)
                np.save(os.path.join(d, "ref_%s.npy" % n), v)


CASES = []


def case(group, name, description, **kw):
    def register(fn):
        CASES.append((group, name, description, kw, fn))
        return fn
    return register


def t(*v):
    """An MXNet tuple attribute, written as MXNet's Python frontend writes it: "(3, 3)", "(3,)"."""
    return str(tuple(v))


# ----------------------------------------------------------------------------------------------
# ops: FullyConnected
# ----------------------------------------------------------------------------------------------

@case("ops", "fc_flatten", "FullyConnected, flatten default True: 4-D input flattened to (N, 48)")
def _(c):
    x, xv = c.input("data", c.randn(2, 3, 4, 4))
    w, wv = c.param("fc0_weight", c.randn(5, 48, scale=0.2))
    b, bv = c.param("fc0_bias", c.randn(5))
    y = c.op("FullyConnected", "fc0", [x, w, b], {"num_hidden": "5"})
    c.output(y, fully_connected(xv, wv, bv))


@case("ops", "fc_no_flatten", "FullyConnected flatten=False: applied to the last axis of 3-D")
def _(c):
    x, xv = c.input("data", c.randn(2, 3, 6))
    w, wv = c.param("fc0_weight", c.randn(4, 6, scale=0.4))
    b, bv = c.param("fc0_bias", c.randn(4))
    y = c.op("FullyConnected", "fc0", [x, w, b], {"flatten": "False", "num_hidden": "4"})
    c.output(y, fully_connected(xv, wv, bv, flatten=False))


@case("ops", "fc_no_bias", "FullyConnected no_bias=True: two inputs only")
def _(c):
    x, xv = c.input("data", c.randn(3, 7))
    w, wv = c.param("fc0_weight", c.randn(5, 7, scale=0.4))
    y = c.op("FullyConnected", "fc0", [x, w], {"no_bias": "True", "num_hidden": "5"})
    c.output(y, fully_connected(xv, wv, None))


# ----------------------------------------------------------------------------------------------
# ops: Convolution
# ----------------------------------------------------------------------------------------------

def conv_case(c, dshape, num_filter, kernel, stride=None, pad=None, dilate=None, num_group=1,
              no_bias=False, extra=None):
    nd = len(kernel)
    x, xv = c.input("data", c.randn(*dshape))
    cin = dshape[1] // num_group
    fan_in = cin * int(np.prod(kernel))
    w, wv = c.param("conv0_weight", c.randn(num_filter, cin, *kernel, scale=1 / fan_in ** 0.5))
    inputs = [x, w]
    attrs = {"kernel": t(*kernel)}
    if no_bias:
        bv = None
        attrs["no_bias"] = "True"
    else:
        b, bv = c.param("conv0_bias", c.randn(num_filter))
        inputs.append(b)
    for key, val in (("stride", stride), ("pad", pad), ("dilate", dilate)):
        if val:
            attrs[key] = t(*val)
    if num_group != 1:
        attrs["num_group"] = str(num_group)
    attrs["num_filter"] = str(num_filter)
    attrs.update(extra or {})
    y = c.op("Convolution", "conv0", inputs, attrs)
    c.output(y, conv_nd(xv, wv, bv, stride or (1,) * nd, pad or (0,) * nd, dilate or (1,) * nd,
                        num_group))


@case("ops", "conv2d_basic", "Convolution 3x3, 3->4 channels, defaults for stride/pad/dilate")
def _(c):
    conv_case(c, (2, 3, 8, 8), 4, (3, 3))


@case("ops", "conv2d_stride_pad", "Convolution with a 3x2 kernel, stride (2, 1), pad (1, 2)")
def _(c):
    conv_case(c, (2, 3, 9, 8), 4, (3, 2), stride=(2, 1), pad=(1, 2))


@case("ops", "conv2d_dilate", "Convolution 3x3 with dilate (2, 3) and pad (2, 3)")
def _(c):
    conv_case(c, (1, 2, 9, 9), 3, (3, 3), pad=(2, 3), dilate=(2, 3))


@case("ops", "conv2d_group", "Convolution num_group=2: 4 -> 6 channels, 3 filters per group")
def _(c):
    conv_case(c, (2, 4, 6, 6), 6, (3, 3), pad=(1, 1), num_group=2, extra={"layout": "NCHW"})


@case("ops", "conv2d_depthwise", "Depthwise Convolution: num_group = channels = filters = 4")
def _(c):
    conv_case(c, (2, 4, 7, 7), 4, (3, 3), stride=(2, 2), pad=(1, 1), num_group=4)


@case("ops", "conv2d_no_bias", "Convolution no_bias=True, 2x2 kernel, stride 2")
def _(c):
    conv_case(c, (2, 3, 6, 6), 5, (2, 2), stride=(2, 2), no_bias=True)


@case("ops", "conv1d", "1-D Convolution (NCW): kernel (3,), stride (2,), pad (1,)")
def _(c):
    conv_case(c, (2, 3, 10), 4, (3,), stride=(2,), pad=(1,), extra={"layout": "NCW"})


# ----------------------------------------------------------------------------------------------
# ops: Pooling
# ----------------------------------------------------------------------------------------------

def pool_case(c, x, xv, pool_type, kernel=None, stride=None, pad=None, convention=None,
              count_include_pad=None, global_pool=False):
    attrs = {}
    if global_pool:
        attrs["global_pool"] = "True"
    if kernel:
        attrs["kernel"] = t(*kernel)
    if pad:
        attrs["pad"] = t(*pad)
    attrs["pool_type"] = pool_type
    if convention:
        attrs["pooling_convention"] = convention
    if stride:
        attrs["stride"] = t(*stride)
    if count_include_pad is not None:
        attrs["count_include_pad"] = str(count_include_pad)
    y = c.op("Pooling", "pool0", [x], attrs)
    c.output(y, pool_nd(xv, pool_type, kernel, stride, pad, convention or "valid",
                        True if count_include_pad is None else count_include_pad, global_pool))


# Pooling of standard-normal data: (name, description, input shape, pool type, the rest of
# pool_case's arguments).
POOL_CASES = [
    ("pool_max", "Max pooling 2x2 stride 2", (2, 3, 8, 8), "max",
     dict(kernel=(2, 2), stride=(2, 2))),
    ("pool_max_default_stride", "Max pooling 3x3 without stride: MXNet's stride is 1",
     (2, 3, 6, 6), "max", dict(kernel=(3, 3))),
    ("pool_max_full", "Max pooling 2x2/2 on 7x7, pooling_convention full: 4x4 (valid: 3x3)",
     (1, 2, 7, 7), "max", dict(kernel=(2, 2), stride=(2, 2), convention="full")),
    ("pool_avg", "Average pooling 2x2 stride 2, no padding", (2, 3, 8, 8), "avg",
     dict(kernel=(2, 2), stride=(2, 2))),
    ("pool_avg_pad",
     "Average pooling 3x3/2 pad 1, count_include_pad default True: divides by 9 at the border",
     (1, 2, 7, 7), "avg", dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1))),
    ("pool_avg_pad_exclude",
     "Average pooling 3x3/2 pad 1, count_include_pad False: divides by the in-bounds count",
     (1, 2, 7, 7), "avg", dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1), count_include_pad=False)),
    ("pool_avg_full",
     "Average pooling 3x3/2 pad 1 on 8x8, convention full (5x5; valid gives 4x4); the last "
     "window overhangs the padded input and MXNet divides by the window clipped to it (2 per dim)",
     (1, 2, 8, 8), "avg", dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1), convention="full")),
    ("pool_avg_full_exclude",
     "Average pooling 3x3/2 pad 1 on 8x8, convention full, count_include_pad False",
     (1, 2, 8, 8), "avg",
     dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1), convention="full", count_include_pad=False)),
    ("pool_sum", "Sum pooling 3x3/2 pad 1 (padding adds zeros, no division)", (2, 2, 7, 7), "sum",
     dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1))),
    ("pool_global_avg",
     "Global average pooling as Gluon exports it: kernel (1, 1) is ignored, output 1x1",
     (2, 3, 5, 5), "avg", dict(kernel=(1, 1), global_pool=True)),
    ("pool_global_max", "Global max pooling without a kernel attribute", (2, 3, 4, 6), "max",
     dict(global_pool=True)),
]


def register_pool_case(name, description, shape, pool_type, kwargs):
    @case("ops", name, description)
    def _(c):
        x, xv = c.input("data", c.randn(*shape))
        pool_case(c, x, xv, pool_type, **kwargs)


for row in POOL_CASES:
    register_pool_case(*row)


@case("ops", "pool_max_pad_negative",
      "Max pooling 3x3/2 pad 1 on all-negative data: padding must not act as 0")
def _(c):
    x, xv = c.input("data", -c.uniform(0.5, 2.0, 2, 3, 8, 8))
    pool_case(c, x, xv, "max", (3, 3), (2, 2), (1, 1))


# ----------------------------------------------------------------------------------------------
# ops: Activation, LeakyReLU
# ----------------------------------------------------------------------------------------------

for _kind in ("relu", "sigmoid", "tanh", "softrelu", "softsign"):
    def _make(kind):
        @case("ops", "act_" + kind, "Activation act_type=" + kind)
        def _(c):
            x, xv = c.input("data", c.randn(2, 3, 4, scale=2.0))
            y = c.op("Activation", "act0", [x], {"act_type": kind})
            c.output(y, act(xv, kind))
    _make(_kind)


@case("ops", "leaky_default", "LeakyReLU without attributes: act_type leaky, slope 0.25")
def _(c):
    x, xv = c.input("data", c.randn(2, 3, 4, scale=2.0))
    c.output(c.op("LeakyReLU", "leaky0", [x]), act(xv, "leaky", 0.25))


@case("ops", "leaky_slope", "LeakyReLU act_type leaky, slope 0.1")
def _(c):
    x, xv = c.input("data", c.randn(2, 3, 4, scale=2.0))
    y = c.op("LeakyReLU", "leaky0", [x], {"act_type": "leaky", "slope": "0.1"})
    c.output(y, act(xv, "leaky", 0.1))


@case("ops", "leaky_elu", "LeakyReLU act_type elu, slope 0.7: slope * (exp(x) - 1) for x <= 0")
def _(c):
    x, xv = c.input("data", c.randn(2, 3, 4, scale=2.0))
    y = c.op("LeakyReLU", "elu0", [x], {"act_type": "elu", "slope": "0.7"})
    c.output(y, act(xv, "elu", 0.7))


@case("ops", "leaky_prelu", "LeakyReLU act_type prelu: learned gamma (C,) broadcast over axis 1")
def _(c):
    x, xv = c.input("data", c.randn(2, 3, 2, 2, scale=2.0))
    g, gv = c.param("prelu0_gamma", np.array([0.1, -0.5, 2.0], np.float32))
    y = c.op("LeakyReLU", "prelu0", [x, g], {"act_type": "prelu"})
    c.output(y, act(xv, "prelu", gamma=gv))


@case("ops", "leaky_selu", "LeakyReLU act_type selu")
def _(c):
    x, xv = c.input("data", c.randn(2, 3, 4, scale=2.0))
    c.output(c.op("LeakyReLU", "selu0", [x], {"act_type": "selu"}), act(xv, "selu"))


@case("ops", "leaky_gelu", "LeakyReLU act_type gelu (erf form)")
def _(c):
    x, xv = c.input("data", c.randn(2, 3, 4, scale=2.0))
    c.output(c.op("LeakyReLU", "gelu0", [x], {"act_type": "gelu"}), act(xv, "gelu"))


# ----------------------------------------------------------------------------------------------
# ops: BatchNorm (inference: moving statistics)
# ----------------------------------------------------------------------------------------------

def bn_case(c, dshape, attrs, axis=1, eps=1e-3, fix_gamma=True):
    x, xv = c.input("data", c.randn(*dshape, scale=2.0))
    ch = dshape[axis]
    # gamma far from 1 and small variances, so fix_gamma and eps visibly matter.
    g, gv = c.param("bn0_gamma", c.uniform(0.3, 3.0, ch) * np.where(np.arange(ch) % 2, -1, 1))
    b, bv = c.param("bn0_beta", c.randn(ch))
    m, mv = c.param("bn0_moving_mean", c.randn(ch), aux=True)
    v, vv = c.param("bn0_moving_var", c.uniform(0.005, 0.05, ch), aux=True)
    y = c.op("BatchNorm", "bn0", [x, g, b, m, v], attrs)
    c.output(y, batch_norm(xv, gv, bv, mv, vv, eps, fix_gamma, axis))


@case("ops", "bn_default",
      "BatchNorm without attributes: eps 1e-3 and fix_gamma True (gamma ignored, taken as 1)")
def _(c):
    bn_case(c, (2, 3, 4, 4), {})


@case("ops", "bn_no_fix_gamma", "BatchNorm fix_gamma=False, eps=1e-05")
def _(c):
    bn_case(c, (2, 3, 4, 4), {"eps": "1e-05", "fix_gamma": "False"}, eps=1e-5, fix_gamma=False)


@case("ops", "bn_global_stats", "BatchNorm use_global_stats=True, fix_gamma=False, eps=2e-05")
def _(c):
    bn_case(c, (2, 3, 4, 4), {"eps": "2e-05", "fix_gamma": "False", "momentum": "0.9",
                              "use_global_stats": "True"}, eps=2e-5, fix_gamma=False)


@case("ops", "bn_axis_last", "BatchNorm axis=-1 on NHWC-like data (4 channels last)")
def _(c):
    bn_case(c, (2, 3, 3, 4), {"axis": "-1", "fix_gamma": "False"}, axis=-1, fix_gamma=False)


@case("ops", "bn_axis3", "BatchNorm axis=3 on NHWC-like data, fix_gamma default True")
def _(c):
    bn_case(c, (2, 3, 3, 5), {"axis": "3"}, axis=3)


@case("ops", "bn_2d", "BatchNorm on (N, C) data, fix_gamma=False")
def _(c):
    bn_case(c, (4, 5), {"fix_gamma": "False"}, fix_gamma=False)


# ----------------------------------------------------------------------------------------------
# ops: shape manipulation
# ----------------------------------------------------------------------------------------------

@case("ops", "dropout", "Dropout p=0.5 is the identity at inference")
def _(c):
    x, xv = c.input("data", c.randn(2, 3, 4))
    c.output(c.op("Dropout", "drop0", [x], {"p": "0.5"}), xv)


@case("ops", "flatten", "Flatten (2, 3, 2, 2) -> (2, 12)")
def _(c):
    x, xv = c.input("data", c.randn(2, 3, 2, 2))
    c.output(c.op("Flatten", "flatten0", [x]), xv.reshape(2, -1))


for _name, _shape, _spec, _desc in (
        ("reshape_zero", (2, 3, 4), (0, 4, 3), "0 copies the input dim"),
        ("reshape_infer", (2, 3, 4), (-1, 6), "-1 is inferred"),
        ("reshape_copy_rest", (2, 3, 4), (2, -2, 1, 1),
         "-2 copies the remaining dims: (2, 3, 4, 1, 1)"),
        ("reshape_merge", (2, 3, 4, 5), (0, -3, 5), "-3 merges two dims: (2, 12, 5)"),
        ("reshape_split", (2, 6, 4), (0, -4, 2, -1, 0), "-4 splits a dim: (2, 2, 3, 4)")):
    def _make(name, shape, spec, desc):
        @case("ops", name, "Reshape shape=%s on %s: %s" % (t(*spec), shape, desc))
        def _(c):
            x, xv = c.input("data", c.randn(*shape))
            y = c.op("Reshape", "reshape0", [x], {"shape": t(*spec)})
            c.output(y, xv.reshape(reshape_target(shape, spec)))
    _make(_name, _shape, _spec, _desc)


@case("ops", "transpose_default", "transpose without axes reverses them: (2, 3, 4) -> (4, 3, 2)")
def _(c):
    x, xv = c.input("data", c.randn(2, 3, 4))
    c.output(c.op("transpose", "transpose0", [x]), xv.transpose())


@case("ops", "transpose_axes", "transpose axes=(0, 2, 3, 1)")
def _(c):
    x, xv = c.input("data", c.randn(2, 3, 4, 5))
    y = c.op("transpose", "transpose0", [x], {"axes": t(0, 2, 3, 1)})
    c.output(y, xv.transpose(0, 2, 3, 1))


@case("ops", "expand_dims", "expand_dims axis=1: (2, 3) -> (2, 1, 3)")
def _(c):
    x, xv = c.input("data", c.randn(2, 3))
    c.output(c.op("expand_dims", "expand0", [x], {"axis": "1"}), np.expand_dims(xv, 1))


@case("ops", "expand_dims_neg", "expand_dims axis=-1: (2, 3) -> (2, 3, 1)")
def _(c):
    x, xv = c.input("data", c.randn(2, 3))
    c.output(c.op("expand_dims", "expand0", [x], {"axis": "-1"}), np.expand_dims(xv, -1))


@case("ops", "squeeze_axis", "squeeze axis=1: (2, 1, 3, 1) -> (2, 3, 1)")
def _(c):
    x, xv = c.input("data", c.randn(2, 1, 3, 1))
    c.output(c.op("squeeze", "squeeze0", [x], {"axis": "1"}), xv.squeeze(1))


@case("ops", "squeeze_all", "squeeze without axis: (1, 3, 1, 2) -> (3, 2)")
def _(c):
    x, xv = c.input("data", c.randn(1, 3, 1, 2))
    c.output(c.op("squeeze", "squeeze0", [x]), xv.squeeze())


@case("ops", "concat", "Concat of 3 inputs, dim default 1")
def _(c):
    xs = [c.input("data%d" % i, c.randn(2, i + 1, 3)) for i in range(3)]
    y = c.op("Concat", "concat0", [s for s, _ in xs], {"num_args": "3"})
    c.output(y, np.concatenate([v for _, v in xs], axis=1))


@case("ops", "concat_dim2", "Concat of 3 inputs along dim 2")
def _(c):
    xs = [c.input("data%d" % i, c.randn(2, 3, n)) for i, n in enumerate((1, 2, 4))]
    y = c.op("Concat", "concat0", [s for s, _ in xs], {"dim": "2", "num_args": "3"})
    c.output(y, np.concatenate([v for _, v in xs], axis=2))


@case("ops", "slice_basic", "slice begin=(1, None, 2) end=(3, None, 5) on (4, 5, 6)")
def _(c):
    x, xv = c.input("data", c.randn(4, 5, 6))
    y = c.op("slice", "slice0", [x], {"begin": t(1, None, 2), "end": t(3, None, 5)})
    c.output(y, xv[1:3, :, 2:5])


@case("ops", "slice_step", "slice begin=(None, 4) end=(None, 0) step=(2, -1); dim 2 untouched")
def _(c):
    x, xv = c.input("data", c.randn(4, 5, 6))
    y = c.op("slice", "slice0", [x],
             {"begin": t(None, 4), "end": t(None, 0), "step": t(2, -1)})
    c.output(y, xv[::2, 4:0:-1])


@case("ops", "slice_neg_step",
      "slice begin=(-2, None) end=(None, 1) step=(-1, -2): negative begin, None with step < 0")
def _(c):
    x, xv = c.input("data", c.randn(4, 5, 3))
    y = c.op("slice", "slice0", [x],
             {"begin": t(-2, None), "end": t(None, 1), "step": t(-1, -2)})
    c.output(y, xv[-2::-1, :1:-2])


@case("ops", "slice_axis", "slice_axis axis=1 begin=1 end=None")
def _(c):
    x, xv = c.input("data", c.randn(4, 5, 6))
    y = c.op("slice_axis", "slice0", [x], {"axis": "1", "begin": "1", "end": "None"})
    c.output(y, xv[:, 1:])


@case("ops", "slice_axis_neg", "slice_axis axis=-1 begin=-4 end=-1")
def _(c):
    x, xv = c.input("data", c.randn(4, 5, 6))
    y = c.op("slice_axis", "slice0", [x], {"axis": "-1", "begin": "-4", "end": "-1"})
    c.output(y, xv[:, :, -4:-1])


@case("ops", "split", "SliceChannel num_outputs=2 (axis default 1), both outputs are heads")
def _(c):
    x, xv = c.input("data", c.randn(2, 4, 3))
    ys = c.op("SliceChannel", "split0", [x], {"num_outputs": "2"}, num_outputs=2)
    for y, r in zip(ys, np.split(xv, 2, axis=1)):
        c.output(y, r, multi=True)


@case("ops", "split_squeeze", "SliceChannel axis=2 num_outputs=2 squeeze_axis=True")
def _(c):
    x, xv = c.input("data", c.randn(2, 3, 2))
    ys = c.op("SliceChannel", "split0", [x],
              {"axis": "2", "num_outputs": "2", "squeeze_axis": "True"}, num_outputs=2)
    for y, r in zip(ys, np.split(xv, 2, axis=2)):
        c.output(y, r.squeeze(2), multi=True)


# ----------------------------------------------------------------------------------------------
# ops: elementwise and broadcast binary, scalar, unary
# ----------------------------------------------------------------------------------------------

BINARY = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
    "plus": np.add, "minus": np.subtract, "maximum": np.maximum, "minimum": np.minimum,
    "power": np.power,
}


def binary_case(c, op, fn, ashape, bshape, positive=False):
    if positive or fn in (np.divide, np.power):  # keep denominators and bases away from 0
        av = c.uniform(0.5, 2.0, *ashape)
        bv = c.uniform(0.5, 2.0, *bshape) if fn is np.divide or positive else c.randn(*bshape)
    else:
        av, bv = c.randn(*ashape), c.randn(*bshape)
    a, av = c.input("a", av)
    b, bv = c.input("b", bv)
    c.output(c.op(op, "op0", [a, b]), fn(av, bv))


for _op, _fn in (("elemwise_add", np.add), ("elemwise_sub", np.subtract),
                 ("elemwise_mul", np.multiply), ("elemwise_div", np.divide),
                 ("_plus", np.add), ("_minus", np.subtract), ("_mul", np.multiply),
                 ("_div", np.divide), ("_maximum", np.maximum), ("_minimum", np.minimum),
                 ("_power", np.power)):
    def _make(op, fn):
        @case("ops", "binary" + op if op.startswith("_") else op,
              "%s of two (2, 3, 4) tensors" % op)
        def _(c):
            binary_case(c, op, fn, (2, 3, 4), (2, 3, 4))
    _make(_op, _fn)

for _op, _fn, _a, _b in (
        ("broadcast_add", np.add, (2, 3, 4), (1, 3, 1)),
        ("broadcast_sub", np.subtract, (2, 3, 4), (2, 1, 4)),
        ("broadcast_mul", np.multiply, (2, 1, 4), (1, 3, 1)),
        ("broadcast_div", np.divide, (2, 3, 4), (1, 1, 1)),
        ("broadcast_maximum", np.maximum, (2, 3, 4), (1, 3, 1)),
        ("broadcast_minimum", np.minimum, (1, 3, 4), (2, 3, 1)),
        ("broadcast_power", np.power, (2, 3, 4), (1, 3, 1))):
    def _make(op, fn, ashape, bshape):
        @case("ops", op, "%s of %s and %s" % (op, ashape, bshape))
        def _(c):
            binary_case(c, op, fn, ashape, bshape)
    _make(_op, _fn, _a, _b)


@case("ops", "broadcast_add_rank",
      "broadcast_add of (2, 3, 4) and (4,): ranks differ, shapes align on the right")
def _(c):
    binary_case(c, "broadcast_add", np.add, (2, 3, 4), (4,))


for _op, _scalar, _fn, _positive in (
        ("_plus_scalar", 1.5, lambda x, s: x + s, False),
        ("_minus_scalar", 1.5, lambda x, s: x - s, False),
        ("_rminus_scalar", 1.5, lambda x, s: s - x, False),
        ("_mul_scalar", -2.5, lambda x, s: x * s, False),
        ("_div_scalar", 4.0, lambda x, s: x / s, False),
        ("_rdiv_scalar", 3.0, lambda x, s: s / x, True),
        ("_maximum_scalar", 0.25, np.maximum, False),
        ("_minimum_scalar", 0.25, np.minimum, False),
        ("_power_scalar", 2.5, np.power, True)):
    def _make(op, scalar, fn, positive):
        @case("ops", op.lstrip("_"), "%s with scalar=%s" % (op, scalar))
        def _(c):
            xv = c.uniform(0.5, 2.0, 2, 3, 4) if positive else c.randn(2, 3, 4)
            x, xv = c.input("data", xv)
            y = c.op(op, "op0", [x], {"scalar": str(scalar)})
            c.output(y, fn(xv, scalar))
    _make(_op, _scalar, _fn, _positive)

for _op, _fn, _positive in (
        ("exp", np.exp, False), ("log", np.log, True), ("sqrt", np.sqrt, True),
        ("rsqrt", lambda x: 1 / np.sqrt(x), True), ("square", np.square, False),
        ("abs", np.abs, False), ("negative", np.negative, False),
        ("reciprocal", np.reciprocal, True)):
    def _make(op, fn, positive):
        @case("ops", "unary_" + op, "%s (elementwise)" % op)
        def _(c):
            x, xv = c.input("data", c.uniform(0.2, 3.0, 2, 3, 4) if positive else c.randn(2, 3, 4))
            c.output(c.op(op, "op0", [x]), fn(xv))
    _make(_op, _fn, _positive)


@case("ops", "clip", "clip a_min=-0.5 a_max=0.75")
def _(c):
    x, xv = c.input("data", c.randn(2, 3, 4))
    y = c.op("clip", "clip0", [x], {"a_max": "0.75", "a_min": "-0.5"})
    c.output(y, np.clip(xv, -0.5, 0.75))


# ----------------------------------------------------------------------------------------------
# ops: softmax family
# ----------------------------------------------------------------------------------------------

@case("ops", "softmax_default", "softmax, axis default -1")
def _(c):
    x, xv = c.input("data", c.randn(2, 3, 5, scale=2.0))
    c.output(c.op("softmax", "softmax0", [x]), softmax(xv, -1))


@case("ops", "softmax_axis1", "softmax axis=1 on 3-D data")
def _(c):
    x, xv = c.input("data", c.randn(2, 3, 4, scale=2.0))
    c.output(c.op("softmax", "softmax0", [x], {"axis": "1"}), softmax(xv, 1))


@case("ops", "softmax_temperature", "softmax temperature=2.0: softmax(x / 2)")
def _(c):
    x, xv = c.input("data", c.randn(2, 5, scale=3.0))
    y = c.op("softmax", "softmax0", [x], {"temperature": "2.0"})
    c.output(y, softmax(xv, -1, 2.0))


@case("ops", "log_softmax", "log_softmax, axis default -1")
def _(c):
    x, xv = c.input("data", c.randn(3, 5, scale=2.0))
    c.output(c.op("log_softmax", "logsm0", [x]), log_softmax(xv, -1))


@case("ops", "log_softmax_axis0", "log_softmax axis=0")
def _(c):
    x, xv = c.input("data", c.randn(3, 4, scale=2.0))
    c.output(c.op("log_softmax", "logsm0", [x], {"axis": "0"}), log_softmax(xv, 0))


@case("ops", "softmaxoutput",
      "SoftmaxOutput at inference on (N, C): softmax over axis 1; softmax_label is dropped")
def _(c):
    x, xv = c.input("data", c.randn(3, 5, scale=2.0))
    lbl = c.var("softmax_label")
    c.output(c.op("SoftmaxOutput", "softmax", [x, lbl]), softmax(xv, 1))


@case("ops", "softmaxoutput_4d",
      "SoftmaxOutput on (2, 3, 2, 2) without multi_output: one softmax over all 12 values of "
      "each sample (data viewed as (N, size/N))")
def _(c):
    x, xv = c.input("data", c.randn(2, 3, 2, 2, scale=2.0))
    lbl = c.var("softmax_label")
    c.output(c.op("SoftmaxOutput", "softmax", [x, lbl]),
             softmax(xv.reshape(2, -1), 1).reshape(xv.shape))


@case("ops", "softmaxoutput_multi", "SoftmaxOutput multi_output=True on (2, 4, 3): over axis 1")
def _(c):
    x, xv = c.input("data", c.randn(2, 4, 3, scale=2.0))
    lbl = c.var("softmax_label")
    y = c.op("SoftmaxOutput", "softmax", [x, lbl], {"multi_output": "True"})
    c.output(y, softmax(xv, 1))


# ----------------------------------------------------------------------------------------------
# ops: dot, batch_dot, LRN, Embedding, reductions, identities
# ----------------------------------------------------------------------------------------------

for _name, _ashape, _bshape, _attrs, _fn in (
        ("dot", (3, 4), (4, 5), {}, lambda a, b: a @ b),
        ("dot_transpose_a", (4, 3), (4, 5), {"transpose_a": "True"}, lambda a, b: a.T @ b),
        ("dot_transpose_b", (3, 4), (5, 4), {"transpose_b": "True"}, lambda a, b: a @ b.T),
        ("batch_dot", (2, 3, 4), (2, 4, 5), {}, lambda a, b: a @ b),
        ("batch_dot_transpose_a", (2, 4, 3), (2, 4, 5), {"transpose_a": "True"},
         lambda a, b: a.transpose(0, 2, 1) @ b),
        ("batch_dot_transpose_b", (2, 3, 4), (2, 5, 4), {"transpose_b": "True"},
         lambda a, b: a @ b.transpose(0, 2, 1))):
    def _make(name, ashape, bshape, attrs, fn):
        op = "batch_dot" if name.startswith("batch_dot") else "dot"
        @case("ops", name, "%s of %s and %s %s" % (op, ashape, bshape, attrs or ""))
        def _(c):
            a, av = c.input("a", c.randn(*ashape))
            b, bv = c.input("b", c.randn(*bshape))
            c.output(c.op(op, "dot0", [a, b], attrs), fn(av, bv))
    _make(_name, _ashape, _bshape, _attrs, _fn)


@case("ops", "lrn", "LRN nsize=3 alpha=0.9 beta=0.6 knorm=1.5 (large alpha: the sum matters)")
def _(c):
    x, xv = c.input("data", c.randn(2, 6, 3, 3))
    y = c.op("LRN", "lrn0", [x], {"alpha": "0.9", "beta": "0.6", "knorm": "1.5", "nsize": "3"})
    c.output(y, lrn(xv, 3, 0.9, 0.6, 1.5))


@case("ops", "lrn_default", "LRN nsize=5, defaults alpha=1e-4 beta=0.75 knorm=2")
def _(c):
    x, xv = c.input("data", c.randn(2, 7, 3, 3, scale=20.0))
    c.output(c.op("LRN", "lrn0", [x], {"nsize": "5"}), lrn(xv, 5))


@case("ops", "embedding", "Embedding input_dim=10 output_dim=4; data holds ids as floats")
def _(c):
    ids = np.array([[0, 3, 9], [3, 7, 1]], np.float32)
    x, xv = c.input("data", ids)
    w, wv = c.param("embed0_weight", c.randn(10, 4))
    y = c.op("Embedding", "embed0", [x, w], {"input_dim": "10", "output_dim": "4"})
    c.output(y, wv[xv.astype(np.int64)])


def _reduce(fn, x, axis, keepdims, exclude=False):
    if axis is None:
        return fn(x).reshape(reduce_all_shape(x, keepdims))
    axes = tuple(a % x.ndim for a in (axis if isinstance(axis, tuple) else (axis,)))
    if exclude:
        axes = tuple(a for a in range(x.ndim) if a not in axes)
    return fn(x, axis=axes, keepdims=keepdims)


for _name, _op, _fn, _axis, _keep, _exclude in (
        ("sum_axis", "sum", np.sum, 1, False, False),
        ("sum_axes_keepdims", "sum", np.sum, (0, 2), True, False),
        ("sum_all", "sum", np.sum, None, False, False),
        ("sum_neg_axis", "sum", np.sum, -1, False, False),
        ("sum_exclude", "sum", np.sum, 1, False, True),
        ("mean_axes", "mean", np.mean, (1, 2), False, False),
        ("mean_all_keepdims", "mean", np.mean, None, True, False),
        ("max_axis_keepdims", "max", np.max, 2, True, False),
        ("max_all", "max", np.max, None, False, False),
        ("min_axes", "min", np.min, (0, 1), False, False)):
    def _make(name, op, fn, axis, keep, exclude):
        attrs = {}
        if axis is not None:
            attrs["axis"] = t(*axis) if isinstance(axis, tuple) else str(axis)
        if exclude:
            attrs["exclude"] = "True"
        if keep:
            attrs["keepdims"] = "True"
        desc = "%s %s on (2, 3, 4)%s" % (op, attrs or "without attributes",
                                         " -> shape (1,) as MXNet 1.x" if axis is None
                                         and not keep else "")

        @case("ops", name, desc)
        def _(c):
            x, xv = c.input("data", c.randn(2, 3, 4))
            c.output(c.op(op, "reduce0", [x], attrs), _reduce(fn, xv, axis, keep, exclude))
    _make(_name, _op, _fn, _axis, _keep, _exclude)

for _op in ("BlockGrad", "_copy", "identity"):
    def _make(op):
        @case("ops", op.lower().lstrip("_"), "%s is the identity at inference" % op)
        def _(c):
            x, xv = c.input("data", c.randn(2, 3, 4))
            c.output(c.op(op, "op0", [x]), xv)
    _make(_op)


# ----------------------------------------------------------------------------------------------
# ops: file-format variants (legacy JSON, .params dtypes and layouts)
# ----------------------------------------------------------------------------------------------

def fc_tanh(c, store_dtype=None, fmt="v2"):
    x, xv = c.input("data", c.randn(2, 6))
    wv = c.rng.standard_normal((4, 6)) * 0.5
    bv = c.rng.standard_normal(4)
    w, wv = c.param("fc0_weight", wv, store_dtype=store_dtype)
    b, bv = c.param("fc0_bias", bv, store_dtype=store_dtype)
    c.params_format = fmt
    y = c.op("FullyConnected", "fc0", [x, w, b], {"num_hidden": "4"})
    c.output(c.op("Activation", "act0", [y], {"act_type": "tanh"}),
             np.tanh(fully_connected(xv, wv, bv)))


def param_style_conv(c, dshape, pad=None):
    """A pre-0.9 graph's first layer: data -> conv0, 3x3 with 3 filters and a bias; returns its
    symbol and reference."""
    c.style = "param"
    x, xv = c.input("data", c.randn(*dshape))
    w, wv = c.param("conv0_weight", c.randn(3, 2, 3, 3, scale=0.3))
    b, bv = c.param("conv0_bias", c.randn(3))
    attrs = {"kernel": t(3, 3), "num_filter": "3"}
    if pad:
        attrs["pad"] = t(*pad)
    y = c.op("Convolution", "conv0", [x, w, b], attrs)
    return y, conv_nd(xv, wv, bv, (1, 1), pad or (0, 0), (1, 1), 1)


@case("ops", "format_attr_key", "Symbol JSON of MXNet 0.9.5: node attributes under \"attr\"")
def _(c):
    c.style, c.mxnet_version = "attr", 905
    fc_tanh(c)


@case("ops", "format_param_key",
      "Pre-0.9 symbol JSON: attributes under \"param\", [node, index] inputs, no node_row_ptr, "
      "no mxnet_version")
def _(c):
    y, yv = param_style_conv(c, (1, 2, 5, 5), pad=(1, 1))
    c.output(c.op("Activation", "relu0", [y], {"act_type": "relu"}), act(yv, "relu"))


@case("ops", "format_legacy_bn",
      "Pre-0.9 symbol JSON whose BatchNorm has 3 inputs (data, gamma, beta): the moving stats "
      "are only in the .params, as aux:bn0_moving_mean / aux:bn0_moving_var")
def _(c):
    y, yv = param_style_conv(c, (2, 2, 4, 4))
    g, gv = c.param("bn0_gamma", c.uniform(0.5, 2.0, 3))
    be, bev = c.param("bn0_beta", c.randn(3))
    _, mv = c.param("bn0_moving_mean", c.randn(3), aux=True, in_graph=False)
    _, vv = c.param("bn0_moving_var", c.uniform(0.1, 1.0, 3), aux=True, in_graph=False)
    z = c.op("BatchNorm", "bn0", [y, g, be], {"eps": "0.001", "fix_gamma": "False"})
    zv = batch_norm(yv, gv, bev, mv, vv, 1e-3, False)
    c.output(c.op("Activation", "relu0", [z], {"act_type": "relu"}), act(zv, "relu"))


@case("ops", "params_f16", "Weights stored as float16 (dtype flag 2); mxc converts to float32")
def _(c):
    fc_tanh(c, store_dtype=np.float16)


@case("ops", "params_f64", "Weights stored as float64 (dtype flag 1); mxc converts to float32")
def _(c):
    fc_tanh(c, store_dtype=np.float64)


@case("ops", "params_v1", "Params with V1 NDArray records (magic 0xF993FAC8, no storage type)")
def _(c):
    fc_tanh(c, fmt="v1")


@case("ops", "params_legacy", "Params with pre-V1 NDArray records: no magic, u32 ndim and dims")
def _(c):
    fc_tanh(c, fmt="legacy")


@case("ops", "params_v3", "Params with V3 NDArray records (magic 0xF993FACA)")
def _(c):
    fc_tanh(c, fmt="v3")


# ----------------------------------------------------------------------------------------------
# models
# ----------------------------------------------------------------------------------------------

def fc_layer(c, x, xv, name, n_in, n_out, gain=1.0, flatten=True):
    w, wv = c.param(name + "_weight", c.randn(n_out, n_in, scale=gain / n_in ** 0.5))
    b, bv = c.param(name + "_bias", c.randn(n_out, scale=0.1))
    y = c.op("FullyConnected", name, [x, w, b], {"num_hidden": str(n_out)})
    return y, fully_connected(xv, wv, bv, flatten)


@case("models", "mlp", "MLP 784-128-64-10 with relu and SoftmaxOutput, batch 4", atol=1e-5)
def _(c):
    x, xv = c.input("data", c.uniform(0.0, 1.0, 4, 1, 28, 28))
    y = c.op("Flatten", "flatten0", [x])
    yv = xv.reshape(4, -1)
    for i, (n_in, n_out) in enumerate(((784, 128), (128, 64)), start=1):
        y, yv = fc_layer(c, y, yv, "fc%d" % i, n_in, n_out, gain=2.0)
        y = c.op("Activation", "relu%d" % i, [y], {"act_type": "relu"})
        yv = act(yv, "relu")
    y, yv = fc_layer(c, y, yv, "fc3", 64, 10, gain=1.0)
    lbl = c.var("softmax_label")
    c.output(c.op("SoftmaxOutput", "softmax", [y, lbl]), softmax(yv, 1))


@case("models", "lenet",
      "LeNet: conv5x5(20)-tanh-maxpool2-conv5x5(50)-tanh-maxpool2-fc500-tanh-fc10-SoftmaxOutput")
def _(c):
    x, xv = c.input("data", c.uniform(0.0, 1.0, 2, 1, 28, 28))
    y, yv = x, xv
    for i, (cin, cout) in enumerate(((1, 20), (20, 50)), start=1):
        attrs = {"kernel": t(5, 5), "num_filter": str(cout)}
        # Like MXNet's own exports, auto-created weight variables carry the op's attributes.
        w, wv = c.param("conv%d_weight" % i, c.randn(cout, cin, 5, 5, scale=1.5 / (cin * 25) ** 0.5))
        c.nodes[w.nid]["attrs"] = dict(attrs)
        b, bv = c.param("conv%d_bias" % i, c.randn(cout, scale=0.1))
        y = c.op("Convolution", "conv%d" % i, [y, w, b], attrs)
        yv = conv_nd(yv, wv, bv, (1, 1), (0, 0), (1, 1), 1)
        y = c.op("Activation", "tanh%d" % i, [y], {"act_type": "tanh"})
        yv = act(yv, "tanh")
        y = c.op("Pooling", "pool%d" % i, [y],
                 {"kernel": t(2, 2), "pool_type": "max", "stride": t(2, 2)})
        yv = pool_nd(yv, "max", (2, 2), (2, 2))
    y = c.op("Flatten", "flatten0", [y])
    yv = yv.reshape(2, -1)
    y, yv = fc_layer(c, y, yv, "fc1", 800, 500, gain=1.5)
    y = c.op("Activation", "tanh3", [y], {"act_type": "tanh"})
    yv = act(yv, "tanh")
    y, yv = fc_layer(c, y, yv, "fc2", 500, 10, gain=2.0)
    lbl = c.var("softmax_label")
    c.output(c.op("SoftmaxOutput", "softmax", [y, lbl]), softmax(yv, 1))


# ----------------------------------------------------------------------------------------------
# errors: mxc must exit 1, name the culprit on stderr and leave no output file
# ----------------------------------------------------------------------------------------------

def fc_graph(c, in_features=6, skip=(), extra=(), weight_shape=None):
    x, _ = c.input("data", c.randn(2, in_features))
    w = c.var("fc0_weight")
    b = c.var("fc0_bias")
    arrays = {"fc0_weight": c.randn(*(weight_shape or (4, in_features))),
              "fc0_bias": c.randn(4)}
    arrays.update({n: c.randn(3) for n in extra})
    for n, v in arrays.items():
        if n not in skip:
            c.params.append(("arg:" + n, v))
    c.op("FullyConnected", "fc0", [x, w, b], {"num_hidden": "4"})
    c.heads.append((len(c.nodes) - 1, 0))


@case("errors", "malformed_json", "symbol.json cut in the middle")
def _(c):
    x, _ = c.input("data", c.randn(2, 3))
    c.op("Activation", "relu0", [x], {"act_type": "relu"})
    c.heads.append((1, 0))
    c.symbol_hook = lambda s: s[:len(s) // 2]
    c.expect_error = ["symbol.json"]


@case("errors", "unknown_op", "an operator mxc does not know: FooBar, node foo0")
def _(c):
    x, _ = c.input("data", c.randn(2, 3))
    c.op("FooBar", "foo0", [x], {"alpha": "1"})
    c.heads.append((1, 0))
    c.expect_error = ["foo0", "FooBar"]


@case("errors", "missing_param", "fc0_weight is a variable but neither in .params nor an input")
def _(c):
    fc_graph(c, skip=("fc0_weight",))
    c.expect_error = ["fc0_weight"]


@case("errors", "extra_param", "the .params holds arg:unused_weight, which no variable uses")
def _(c):
    fc_graph(c, extra=("unused_weight",))
    c.expect_error = ["unused_weight"]


@case("errors", "shape_mismatch", "elemwise_add (node add0) of (2, 3) and (2, 4)")
def _(c):
    a, _ = c.input("a", c.randn(2, 3))
    b, _ = c.input("b", c.randn(2, 4))
    c.op("elemwise_add", "add0", [a, b])
    c.heads.append((2, 0))
    c.expect_error = ["add0"]


@case("errors", "truncated_params", ".params cut inside the data of its first array")
def _(c):
    fc_graph(c)
    # 24 bytes of list header, 40 of the first record's header, then 20 of its 96 data bytes.
    c.params_hook = lambda blob: blob[:24 + 40 + 20]
    c.expect_error = ["truncated"]


@case("errors", "wrong_magic", ".params whose file magic is not 0x112")
def _(c):
    fc_graph(c)
    c.params_hook = lambda blob: struct.pack("<Q", 0x113) + blob[8:]
    c.expect_error = ["magic"]


@case("errors", "param_shape_mismatch",
      "fc0_weight stored as (4, 5) while the graph needs (4, 6)")
def _(c):
    fc_graph(c, weight_shape=(4, 5))
    c.expect_error = ["fc0_weight"]


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", default=HERE, help="root holding ops/, models/, errors/")
    args = ap.parse_args()
    for group in ("ops", "models", "errors"):
        d = os.path.join(args.out, group)
        if os.path.isdir(d):  # drop stale cases, only folders this script makes
            for n in os.listdir(d):
                if os.path.isfile(os.path.join(d, n, "case.json")):
                    shutil.rmtree(os.path.join(d, n))
    names = set()
    for group, name, description, kw, fn in CASES:
        assert name not in names, "duplicate case " + name
        names.add(name)
        c = Case(group, name, description, **kw)
        fn(c)
        c.write(args.out)
    per_group = {}
    for group, *_ in CASES:
        per_group[group] = per_group.get(group, 0) + 1
    print("wrote %s" % ", ".join("%d %s cases" % (n, g) for g, n in per_group.items()))
    if cross_check_with_torch():
        sys.exit("error: NumPy references disagree with torch")


if __name__ == "__main__":
    main()
