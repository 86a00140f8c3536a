#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
#
# Writes the MXNet symbol JSON files in this folder: the image-classification networks of MXNet's
# own example/image-classification/symbols/*.py (mlp, lenet, alexnet, vgg, inception-bn,
# googlenet, resnet v2 and v1, mobilenet), built with the same layer sizes, operator attributes
# and names as those scripts, for 1000 classes and a 3x224x224 input. Regenerate them with
#
#     /usr/bin/python3 examples/models/gen_models.py
#
# MXNet itself is not needed: a small symbol builder below mimics the parts of MXNet 1.x's symbol
# API these scripts use (mx.sym.Variable, mx.sym.<Op>(..., name=...), symbol + symbol) and writes
# the graph as MXNet's Symbol.save() does: nodes in depth-first post-order from the head,
# attribute values as Python's str() of the keyword arguments ("(3, 3)", "True", "2e-05") sorted
# by key, automatically created parameter variables named <op name>_<argument> carrying a copy of
# their operator's attributes, auxiliary states (BatchNorm's moving_mean/moving_var) referenced
# with version 1, node_row_ptr counting every output of an operator (BatchNorm 3, Dropout and LRN
# 2), and dmlc's JSON layout. The output is deterministic; no weights are written (the models are
# for compile-only use: mxc without --params makes every parameter an input).
"""Generate examples/models/*.json (see the header comment)."""

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
MXNET_VERSION = 10600  # what MXNet 1.6 writes in "attrs": {"mxnet_version": ["int", ...]}

# ----------------------------------------------------------------------------------------------
# A minimal MXNet 1.x symbol builder
# ----------------------------------------------------------------------------------------------

# op -> (argument names in MXNet's ListArguments order, auxiliary state names, number of outputs
# counted by FNumOutputs, which is what node_row_ptr uses; visible outputs are always 1 here)
OPS = {
    "Convolution": (["data", "weight", "bias"], [], 1),
    "FullyConnected": (["data", "weight", "bias"], [], 1),
    "BatchNorm": (["data", "gamma", "beta"], ["moving_mean", "moving_var"], 3),
    "Activation": (["data"], [], 1),
    "Pooling": (["data"], [], 1),
    "Flatten": (["data"], [], 1),
    "Dropout": (["data"], [], 2),
    "LRN": (["data"], [], 2),
    "SoftmaxOutput": (["data", "label"], [], 1),
    "elemwise_add": (["lhs", "rhs"], [], 1),
    "_copy": (["data"], [], 1),
    "Concat": (None, [], 1),  # variadic: inputs arg0..argN-1, num_args set automatically
}


class Node:
    def __init__(self, op, name, attrs, inputs):
        self.op = op          # "null" for variables
        self.name = name
        self.attrs = attrs    # dict str -> str
        self.inputs = inputs  # list of (Node, output index, version)


class Symbol:
    """One output of a node, like a single-output mx.sym.Symbol."""

    def __init__(self, node, index=0):
        self.node = node
        self.index = index

    def __add__(self, other):  # mx.sym's __add__ is _internal._Plus = elemwise_add, hint "_plus"
        return _make("elemwise_add", [self, other], {}, None, hint="_plus")


class NameManager:
    """MXNet's default NameManager: <hint><counter>, one counter per hint."""

    def __init__(self):
        self.counter = {}

    def get(self, name, hint):
        if name:
            return name
        n = self.counter.get(hint, 0)
        self.counter[hint] = n + 1
        return "%s%d" % (hint, n)


_names = NameManager()


def reset_names():
    global _names
    _names = NameManager()


def attr_str(v):
    """What MXNet's Python frontend passes to the C API for a keyword argument: str(v)."""
    return v if isinstance(v, str) else str(v)


def Variable(name, **attrs):
    return Symbol(Node("null", name, {k: attr_str(v) for k, v in attrs.items()}, []))


def _make(op, args, kwargs, name, hint=None, attr=None):
    arg_names, aux_names, _ = OPS[op]
    attrs = {}
    syms = {}
    for k, v in kwargs.items():
        if isinstance(v, Symbol):
            syms[k] = v
        else:
            attrs[k] = attr_str(v)
    name = _names.get(name, hint if hint is not None else op.lower())
    if arg_names is None:  # variadic (Concat)
        attrs["num_args"] = str(len(args))
        inputs = [(s.node, s.index, 0) for s in args]
    else:
        for a, s in zip(arg_names, args):
            syms[a] = s
        names = list(arg_names)
        if op in ("Convolution", "FullyConnected") and attrs.get("no_bias") == "True":
            names.remove("bias")
        inputs = []
        # Auto-created variables copy their operator's attributes (nnvm Symbol::Compose).
        for a in names:
            s = syms.pop(a, None)
            if s is None:
                s = Variable("%s_%s" % (name, a))
                s.node.attrs = dict(attrs)
            inputs.append((s.node, s.index, 0))
        for a in aux_names:
            s = syms.pop(a, None)
            if s is None:
                s = Variable("%s_%s" % (name, a))
                s.node.attrs = dict(attrs)
            inputs.append((s.node, s.index, 1))  # mutated input: variable version 1
        if syms:
            raise TypeError("%s: unknown inputs %s" % (op, sorted(syms)))
    if attr:  # the attr= dict of MXNet's symbol functions (e.g. lr_mult)
        attrs.update({k: attr_str(v) for k, v in attr.items()})
    return Symbol(Node(op, name, attrs, inputs))


class _Sym:
    """mx.sym / mx.symbol: mx.sym.Convolution(data=..., name=..., **params) and so on."""

    Variable = staticmethod(Variable)

    def __getattr__(self, op):
        mxnet_op = {"identity": "_copy"}.get(op, op)
        if mxnet_op not in OPS:
            raise AttributeError(op)

        def fn(*args, name=None, attr=None, **kwargs):
            return _make(mxnet_op, list(args), kwargs, name, hint=op.lower(), attr=attr)
        return fn


sym = _Sym()

# ----------------------------------------------------------------------------------------------
# Serialisation as MXNet's Symbol.tojson() / save() (nnvm SaveJSON, dmlc::JSONWriter layout)
# ----------------------------------------------------------------------------------------------


def topo_order(head):
    """nnvm DFSVisit: post-order, inputs in order, each node once."""
    order, seen = [], set()
    stack = [(head.node, 0)]
    while stack:
        node, i = stack.pop()
        if i == 0:
            if id(node) in seen:
                continue
            seen.add(id(node))
        if i < len(node.inputs):
            stack.append((node, i + 1))
            child = node.inputs[i][0]
            if id(child) not in seen:
                stack.append((child, 0))
        else:
            order.append(node)
    return order


def _q(s):
    return json.dumps(s)


def _attrs_json(attrs, indent):
    items = sorted(attrs.items())
    if len(items) == 1:
        k, v = items[0]
        return "{%s: %s}" % (_q(k), _q(v))
    pad = " " * (indent + 2)
    body = ", \n".join("%s%s: %s" % (pad, _q(k), _q(v)) for k, v in items)
    return "{\n%s\n%s}" % (body, " " * indent)


def _int_array(values, indent):
    if len(values) <= 10:
        return "[" + ", ".join(str(v) for v in values) + "]"
    pad = " " * (indent + 2)
    return "[\n" + ", \n".join(pad + str(v) for v in values) + "\n" + " " * indent + "]"


def to_json(head):
    nodes = topo_order(head)
    index = {id(n): i for i, n in enumerate(nodes)}
    out = []
    for n in nodes:
        fields = ['      "op": %s' % _q(n.op), '      "name": %s' % _q(n.name)]
        if n.attrs:
            fields.append('      "attrs": %s' % _attrs_json(n.attrs, 6))
        ins = ", ".join("[%d, %d, %d]" % (index[id(src)], idx, ver) for src, idx, ver in n.inputs)
        fields.append('      "inputs": [%s]' % ins)
        out.append("    {\n" + ", \n".join(fields) + "\n    }")
    arg_nodes = [i for i, n in enumerate(nodes) if n.op == "null"]
    row_ptr = [0]
    for n in nodes:
        row_ptr.append(row_ptr[-1] + (1 if n.op == "null" else OPS[n.op][2]))
    heads = "[[%d, %d, 0]]" % (index[id(head.node)], head.index)
    return ("{\n"
            '  "nodes": [\n' + ", \n".join(out) + "\n  ], \n"
            '  "arg_nodes": ' + _int_array(arg_nodes, 2) + ", \n"
            '  "node_row_ptr": ' + _int_array(row_ptr, 2) + ", \n"
            '  "heads": ' + heads + ", \n"
            '  "attrs": {"mxnet_version": ["int", %d]}\n' % MXNET_VERSION +
            "}\n")

# ----------------------------------------------------------------------------------------------
# The networks, transcribed from MXNet's example/image-classification/symbols/*.py
# ----------------------------------------------------------------------------------------------


def mlp(num_classes=1000):
    data = sym.Variable("data")
    data = sym.Flatten(data=data)
    fc1 = sym.FullyConnected(data=data, name="fc1", num_hidden=128)
    act1 = sym.Activation(data=fc1, name="relu1", act_type="relu")
    fc2 = sym.FullyConnected(data=act1, name="fc2", num_hidden=64)
    act2 = sym.Activation(data=fc2, name="relu2", act_type="relu")
    fc3 = sym.FullyConnected(data=act2, name="fc3", num_hidden=num_classes)
    return sym.SoftmaxOutput(data=fc3, name="softmax")


def lenet(num_classes=1000):
    data = sym.Variable("data")
    conv1 = sym.Convolution(data=data, kernel=(5, 5), num_filter=20)
    tanh1 = sym.Activation(data=conv1, act_type="tanh")
    pool1 = sym.Pooling(data=tanh1, pool_type="max", kernel=(2, 2), stride=(2, 2))
    conv2 = sym.Convolution(data=pool1, kernel=(5, 5), num_filter=50)
    tanh2 = sym.Activation(data=conv2, act_type="tanh")
    pool2 = sym.Pooling(data=tanh2, pool_type="max", kernel=(2, 2), stride=(2, 2))
    flatten = sym.Flatten(data=pool2)
    fc1 = sym.FullyConnected(data=flatten, num_hidden=500)
    tanh3 = sym.Activation(data=fc1, act_type="tanh")
    fc2 = sym.FullyConnected(data=tanh3, num_hidden=num_classes)
    return sym.SoftmaxOutput(data=fc2, name="softmax")


def alexnet(num_classes=1000):
    input_data = sym.Variable(name="data")
    conv1 = sym.Convolution(name="conv1", data=input_data, kernel=(11, 11), stride=(4, 4),
                            num_filter=96)
    relu1 = sym.Activation(data=conv1, act_type="relu")
    lrn1 = sym.LRN(data=relu1, alpha=0.0001, beta=0.75, knorm=2, nsize=5)
    pool1 = sym.Pooling(data=lrn1, pool_type="max", kernel=(3, 3), stride=(2, 2))
    conv2 = sym.Convolution(name="conv2", data=pool1, kernel=(5, 5), pad=(2, 2), num_filter=256)
    relu2 = sym.Activation(data=conv2, act_type="relu")
    lrn2 = sym.LRN(data=relu2, alpha=0.0001, beta=0.75, knorm=2, nsize=5)
    pool2 = sym.Pooling(data=lrn2, kernel=(3, 3), stride=(2, 2), pool_type="max")
    conv3 = sym.Convolution(name="conv3", data=pool2, kernel=(3, 3), pad=(1, 1), num_filter=384)
    relu3 = sym.Activation(data=conv3, act_type="relu")
    conv4 = sym.Convolution(name="conv4", data=relu3, kernel=(3, 3), pad=(1, 1), num_filter=384)
    relu4 = sym.Activation(data=conv4, act_type="relu")
    conv5 = sym.Convolution(name="conv5", data=relu4, kernel=(3, 3), pad=(1, 1), num_filter=256)
    relu5 = sym.Activation(data=conv5, act_type="relu")
    pool3 = sym.Pooling(data=relu5, kernel=(3, 3), stride=(2, 2), pool_type="max")
    flatten = sym.Flatten(data=pool3)
    fc1 = sym.FullyConnected(name="fc1", data=flatten, num_hidden=4096)
    relu6 = sym.Activation(data=fc1, act_type="relu")
    dropout1 = sym.Dropout(data=relu6, p=0.5)
    fc2 = sym.FullyConnected(name="fc2", data=dropout1, num_hidden=4096)
    relu7 = sym.Activation(data=fc2, act_type="relu")
    dropout2 = sym.Dropout(data=relu7, p=0.5)
    fc3 = sym.FullyConnected(name="fc3", data=dropout2, num_hidden=num_classes)
    return sym.SoftmaxOutput(data=fc3, name="softmax")


def vgg(num_classes=1000, num_layers=16, batch_norm=False):
    vgg_spec = {11: ([1, 1, 2, 2, 2], [64, 128, 256, 512, 512]),
                13: ([2, 2, 2, 2, 2], [64, 128, 256, 512, 512]),
                16: ([2, 2, 3, 3, 3], [64, 128, 256, 512, 512]),
                19: ([2, 2, 4, 4, 4], [64, 128, 256, 512, 512])}
    layers, filters = vgg_spec[num_layers]
    x = sym.Variable(name="data")
    for i, num in enumerate(layers):  # get_feature
        for j in range(num):
            x = sym.Convolution(data=x, kernel=(3, 3), pad=(1, 1), num_filter=filters[i],
                                name="conv%s_%s" % (i + 1, j + 1))
            if batch_norm:
                x = sym.BatchNorm(data=x, name="bn%s_%s" % (i + 1, j + 1))
            x = sym.Activation(data=x, act_type="relu", name="relu%s_%s" % (i + 1, j + 1))
        x = sym.Pooling(data=x, pool_type="max", kernel=(2, 2), stride=(2, 2),
                        name="pool%s" % (i + 1))
    flatten = sym.Flatten(data=x, name="flatten")  # get_classifier
    fc6 = sym.FullyConnected(data=flatten, num_hidden=4096, name="fc6")
    relu6 = sym.Activation(data=fc6, act_type="relu", name="relu6")
    drop6 = sym.Dropout(data=relu6, p=0.5, name="drop6")
    fc7 = sym.FullyConnected(data=drop6, num_hidden=4096, name="fc7")
    relu7 = sym.Activation(data=fc7, act_type="relu", name="relu7")
    drop7 = sym.Dropout(data=relu7, p=0.5, name="drop7")
    fc8 = sym.FullyConnected(data=drop7, num_hidden=num_classes, name="fc8")
    return sym.SoftmaxOutput(data=fc8, name="softmax")


# inception-bn.py (the branch for images larger than 28x28)
IBN_EPS = 1e-10 + 1e-5
IBN_MOM = 0.9
IBN_FIX_GAMMA = False


def _ibn_conv(data, num_filter, kernel, stride=(1, 1), pad=(0, 0), name=None, suffix=""):
    conv = sym.Convolution(data=data, num_filter=num_filter, kernel=kernel, stride=stride,
                           pad=pad, name="conv_%s%s" % (name, suffix))
    bn = sym.BatchNorm(data=conv, fix_gamma=IBN_FIX_GAMMA, eps=IBN_EPS, momentum=IBN_MOM,
                       name="bn_%s%s" % (name, suffix))
    return sym.Activation(data=bn, act_type="relu", name="relu_%s%s" % (name, suffix))


def _inception(conv, data, num_1x1, num_3x3red, num_3x3, wide, pool, proj, name):
    """The four-branch module Inception-BN's InceptionFactoryA and GoogLeNet's
    InceptionFactory share (with their own `conv` unit): 1x1; 1x1 reduce, 3x3; 1x1 reduce and
    the wider branch, `wide` = (its name, reduce width, (filters, kernel, pad, name suffix) of
    each of its convolutions); pooling, 1x1 projection."""
    c1x1 = conv(data, num_1x1, (1, 1), name="%s_1x1" % name)
    c3x3r = conv(data, num_3x3red, (1, 1), name="%s_3x3" % name, suffix="_reduce")
    c3x3 = conv(c3x3r, num_3x3, (3, 3), pad=(1, 1), name="%s_3x3" % name)
    branch, num_reduce, layers = wide
    cwide = conv(data, num_reduce, (1, 1), name="%s_%s" % (name, branch), suffix="_reduce")
    for num_filter, kernel, pad, suffix in layers:
        cwide = conv(cwide, num_filter, kernel, pad=pad, name="%s_%s%s" % (name, branch, suffix))
    pooling = sym.Pooling(data=data, kernel=(3, 3), stride=(1, 1), pad=(1, 1), pool_type=pool,
                          name="%s_pool_%s_pool" % (pool, name))
    cproj = conv(pooling, proj, (1, 1), name="%s_proj" % name)
    return sym.Concat(c1x1, c3x3, cwide, cproj, name="ch_concat_%s_chconcat" % name)


def _ibn_a(data, num_1x1, num_3x3red, num_3x3, num_d3x3red, num_d3x3, pool, proj, name):
    double_3x3 = [(num_d3x3, (3, 3), (1, 1), "_0"), (num_d3x3, (3, 3), (1, 1), "_1")]
    return _inception(_ibn_conv, data, num_1x1, num_3x3red, num_3x3,
                      ("double_3x3", num_d3x3red, double_3x3), pool, proj, name)


def _ibn_b(data, num_3x3red, num_3x3, num_d3x3red, num_d3x3, name):
    c3x3r = _ibn_conv(data, num_3x3red, (1, 1), name="%s_3x3" % name, suffix="_reduce")
    c3x3 = _ibn_conv(c3x3r, num_3x3, (3, 3), pad=(1, 1), stride=(2, 2), name="%s_3x3" % name)
    cd3x3r = _ibn_conv(data, num_d3x3red, (1, 1), name="%s_double_3x3" % name, suffix="_reduce")
    cd3x3 = _ibn_conv(cd3x3r, num_d3x3, (3, 3), pad=(1, 1), stride=(1, 1),
                      name="%s_double_3x3_0" % name)
    cd3x3 = _ibn_conv(cd3x3, num_d3x3, (3, 3), pad=(1, 1), stride=(2, 2),
                      name="%s_double_3x3_1" % name)
    pooling = sym.Pooling(data=data, kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type="max",
                          name="max_pool_%s_pool" % name)
    return sym.Concat(c3x3, cd3x3, pooling, name="ch_concat_%s_chconcat" % name)


def inception_bn(num_classes=1000):
    data = sym.Variable(name="data")
    conv1 = _ibn_conv(data, 64, (7, 7), stride=(2, 2), pad=(3, 3), name="1")
    pool1 = sym.Pooling(data=conv1, kernel=(3, 3), stride=(2, 2), name="pool_1", pool_type="max")
    conv2red = _ibn_conv(pool1, 64, (1, 1), stride=(1, 1), name="2_red")
    conv2 = _ibn_conv(conv2red, 192, (3, 3), stride=(1, 1), pad=(1, 1), name="2")
    pool2 = sym.Pooling(data=conv2, kernel=(3, 3), stride=(2, 2), name="pool_2", pool_type="max")
    in3a = _ibn_a(pool2, 64, 64, 64, 64, 96, "avg", 32, "3a")
    in3b = _ibn_a(in3a, 64, 64, 96, 64, 96, "avg", 64, "3b")
    in3c = _ibn_b(in3b, 128, 160, 64, 96, "3c")
    in4a = _ibn_a(in3c, 224, 64, 96, 96, 128, "avg", 128, "4a")
    in4b = _ibn_a(in4a, 192, 96, 128, 96, 128, "avg", 128, "4b")
    in4c = _ibn_a(in4b, 160, 128, 160, 128, 160, "avg", 128, "4c")
    in4d = _ibn_a(in4c, 96, 128, 192, 160, 192, "avg", 128, "4d")
    in4e = _ibn_b(in4d, 128, 192, 192, 256, "4e")
    in5a = _ibn_a(in4e, 352, 192, 320, 160, 224, "avg", 128, "5a")
    in5b = _ibn_a(in5a, 352, 192, 320, 192, 224, "max", 128, "5b")
    pool = sym.Pooling(data=in5b, kernel=(7, 7), stride=(1, 1), name="global_pool",
                       pool_type="avg")
    flatten = sym.Flatten(data=pool)
    fc1 = sym.FullyConnected(data=flatten, num_hidden=num_classes)
    return sym.SoftmaxOutput(data=fc1, name="softmax")


# googlenet.py (as fixed by apache/mxnet#9783: global_pool on the last pooling)
def _gn_conv(data, num_filter, kernel, stride=(1, 1), pad=(0, 0), name=None, suffix=""):
    conv = sym.Convolution(data=data, num_filter=num_filter, kernel=kernel, stride=stride,
                           pad=pad, name="conv_%s%s" % (name, suffix))
    return sym.Activation(data=conv, act_type="relu", name="relu_%s%s" % (name, suffix))


def _gn_inception(data, num_1x1, num_3x3red, num_3x3, num_d5x5red, num_d5x5, pool, proj, name):
    return _inception(_gn_conv, data, num_1x1, num_3x3red, num_3x3,
                      ("5x5", num_d5x5red, [(num_d5x5, (5, 5), (2, 2), "")]), pool, proj, name)


def googlenet(num_classes=1000):
    data = sym.Variable("data")
    conv1 = _gn_conv(data, 64, (7, 7), stride=(2, 2), pad=(3, 3), name="conv1")
    pool1 = sym.Pooling(conv1, kernel=(3, 3), stride=(2, 2), pool_type="max")
    conv2 = _gn_conv(pool1, 64, (1, 1), stride=(1, 1), name="conv2")
    conv3 = _gn_conv(conv2, 192, (3, 3), stride=(1, 1), pad=(1, 1), name="conv3")
    pool3 = sym.Pooling(conv3, kernel=(3, 3), stride=(2, 2), pool_type="max")
    in3a = _gn_inception(pool3, 64, 96, 128, 16, 32, "max", 32, name="in3a")
    in3b = _gn_inception(in3a, 128, 128, 192, 32, 96, "max", 64, name="in3b")
    pool4 = sym.Pooling(in3b, kernel=(3, 3), stride=(2, 2), pool_type="max")
    in4a = _gn_inception(pool4, 192, 96, 208, 16, 48, "max", 64, name="in4a")
    in4b = _gn_inception(in4a, 160, 112, 224, 24, 64, "max", 64, name="in4b")
    in4c = _gn_inception(in4b, 128, 128, 256, 24, 64, "max", 64, name="in4c")
    in4d = _gn_inception(in4c, 112, 144, 288, 32, 64, "max", 64, name="in4d")
    in4e = _gn_inception(in4d, 256, 160, 320, 32, 128, "max", 128, name="in4e")
    pool5 = sym.Pooling(in4e, kernel=(3, 3), stride=(2, 2), pool_type="max")
    in5a = _gn_inception(pool5, 256, 160, 320, 32, 128, "max", 128, name="in5a")
    in5b = _gn_inception(in5a, 384, 192, 384, 48, 128, "max", 128, name="in5b")
    pool6 = sym.Pooling(in5b, kernel=(7, 7), stride=(1, 1), global_pool=True, pool_type="avg")
    flatten = sym.Flatten(data=pool6)
    fc1 = sym.FullyConnected(data=flatten, num_hidden=num_classes)
    return sym.SoftmaxOutput(data=fc1, name="softmax")


RESNET_UNITS = {18: [2, 2, 2, 2], 34: [3, 4, 6, 3], 50: [3, 4, 6, 3], 101: [3, 4, 23, 3],
                152: [3, 8, 36, 3]}


def _resnet_spec(num_layers):
    if num_layers >= 50:
        return RESNET_UNITS[num_layers], [64, 256, 512, 1024, 2048], True
    return RESNET_UNITS[num_layers], [64, 64, 128, 256, 512], False


# resnet.py (v2) and resnet-v1.py share their units' convolutions, their stem, stages and head.
def _res_convs(num_filter, stride, bottle_neck, stride_on_3x3):
    """(num_filter, kernel, stride, pad) of a residual unit's convolutions: a bottleneck's
    1x1-3x3-1x1 at a quarter of the width but the last, or two 3x3. The unit's stride goes on the
    first convolution, or with `stride_on_3x3` on the first 3x3 one (v2's bottleneck)."""
    if bottle_neck:
        quarter = int(num_filter * 0.25)
        shapes = [(quarter, (1, 1), (0, 0)), (quarter, (3, 3), (1, 1)),
                  (num_filter, (1, 1), (0, 0))]
    else:
        shapes = [(num_filter, (3, 3), (1, 1))] * 2
    strided = 1 if bottle_neck and stride_on_3x3 else 0
    return [(n, kernel, stride if i == strided else (1, 1), pad)
            for i, (n, kernel, pad) in enumerate(shapes)]


def _res_bn(data, bn_mom, name):
    return sym.BatchNorm(data=data, fix_gamma=False, eps=2e-5, momentum=bn_mom, name=name)


def _res_conv(data, num_filter, kernel, stride, pad, workspace, name):
    return sym.Convolution(data=data, num_filter=num_filter, kernel=kernel, stride=stride,
                           pad=pad, no_bias=True, workspace=workspace, name=name)


# resnet.py: "Identity Mappings in Deep Residual Networks" (pre-activation, v2)
def _res_unit_v2(data, num_filter, stride, dim_match, name, bottle_neck, bn_mom=0.9,
                 workspace=256):
    x, acts = data, []
    for k, (n, kernel, s, pad) in enumerate(
            _res_convs(num_filter, stride, bottle_neck, stride_on_3x3=True), start=1):
        bn = _res_bn(x, bn_mom, "%s_bn%d" % (name, k))
        acts.append(sym.Activation(data=bn, act_type="relu", name="%s_relu%d" % (name, k)))
        x = _res_conv(acts[-1], n, kernel, s, pad, workspace, "%s_conv%d" % (name, k))
    if dim_match:
        shortcut = data
    else:
        shortcut = sym.Convolution(data=acts[0], num_filter=num_filter, kernel=(1, 1),
                                   stride=stride, no_bias=True, workspace=workspace,
                                   name=name + "_sc")
    return x + shortcut


# resnet-v1.py: the original ILSVRC 2015 ResNet (conv-BN-ReLU, ReLU after the add)
def _res_unit_v1(data, num_filter, stride, dim_match, name, bottle_neck, bn_mom=0.9,
                 workspace=256):
    convs = _res_convs(num_filter, stride, bottle_neck, stride_on_3x3=False)
    x = data
    for k, (n, kernel, s, pad) in enumerate(convs, start=1):
        conv = _res_conv(x, n, kernel, s, pad, workspace, "%s_conv%d" % (name, k))
        x = _res_bn(conv, bn_mom, "%s_bn%d" % (name, k))
        if k < len(convs):
            x = sym.Activation(data=x, act_type="relu", name="%s_relu%d" % (name, k))
    if dim_match:
        shortcut = data
    else:
        conv1sc = sym.Convolution(data=data, num_filter=num_filter, kernel=(1, 1), stride=stride,
                                  no_bias=True, workspace=workspace, name=name + "_conv1sc")
        shortcut = _res_bn(conv1sc, bn_mom, name + "_sc")
    return sym.Activation(data=x + shortcut, act_type="relu", name=name + "_relu3")


def _resnet(unit, pre_activation, num_classes, num_layers, bn_mom, workspace):
    """The network around the units: v2 (`pre_activation`) normalises the data first and ends in
    BN-ReLU; both run stages of units, the first of each stage but the first striding 2."""
    units, filter_list, bottle_neck = _resnet_spec(num_layers)
    data = sym.Variable(name="data")
    data = sym.identity(data=data, name="id")
    if pre_activation:
        data = sym.BatchNorm(data=data, fix_gamma=True, eps=2e-5, momentum=bn_mom,
                             name="bn_data")
    body = sym.Convolution(data=data, num_filter=filter_list[0], kernel=(7, 7), stride=(2, 2),
                           pad=(3, 3), no_bias=True, name="conv0", workspace=workspace)
    body = _res_bn(body, bn_mom, "bn0")
    body = sym.Activation(data=body, act_type="relu", name="relu0")
    body = sym.Pooling(data=body, kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type="max")
    for i in range(4):
        for j in range(units[i]):
            s = 2 if i > 0 and j == 0 else 1
            body = unit(body, filter_list[i + 1], (s, s), j > 0,
                        "stage%d_unit%d" % (i + 1, j + 1), bottle_neck, workspace=workspace)
    if pre_activation:
        body = _res_bn(body, bn_mom, "bn1")
        body = sym.Activation(data=body, act_type="relu", name="relu1")
    pool1 = sym.Pooling(data=body, global_pool=True, kernel=(7, 7), pool_type="avg",
                        name="pool1")
    flat = sym.Flatten(data=pool1)
    fc1 = sym.FullyConnected(data=flat, num_hidden=num_classes, name="fc1")
    return sym.SoftmaxOutput(data=fc1, name="softmax")


def resnet_v2(num_classes=1000, num_layers=50, bn_mom=0.9, workspace=256):
    return _resnet(_res_unit_v2, True, num_classes, num_layers, bn_mom, workspace)


def resnet_v1(num_classes=1000, num_layers=18, bn_mom=0.9, workspace=256):
    return _resnet(_res_unit_v1, False, num_classes, num_layers, bn_mom, workspace)


# mobilenet.py get_symbol (MobileNet v1; depthwise convolutions have num_group = channels)
def _mb_conv(data, num_filter=1, kernel=(1, 1), stride=(1, 1), pad=(0, 0), num_group=1, name="",
             suffix=""):
    conv = sym.Convolution(data=data, num_filter=num_filter, kernel=kernel, num_group=num_group,
                           stride=stride, pad=pad, no_bias=True,
                           name="%s%s_conv2d" % (name, suffix))
    bn = sym.BatchNorm(data=conv, name="%s%s_batchnorm" % (name, suffix), fix_gamma=True)
    return sym.Activation(data=bn, act_type="relu", name="%s%s_relu" % (name, suffix))


def mobilenet(num_classes=1000, alpha=1, resolution=224):
    base = int(32 * alpha)
    data = sym.Variable(name="data")
    x = _mb_conv(data, num_filter=base, kernel=(3, 3), pad=(1, 1), stride=(2, 2), name="conv_1")
    # (depth of the depthwise layer, its stride, output channels of the pointwise layer)
    blocks = [(base, 1, base * 2), (base * 2, 2, base * 4), (base * 4, 1, base * 4),
              (base * 4, 2, base * 8), (base * 8, 1, base * 8), (base * 8, 2, base * 16)]
    blocks += [(base * 16, 1, base * 16)] * 5
    blocks += [(base * 16, 2, base * 32), (base * 32, 1, base * 32)]
    for idx, (depth, s, out) in enumerate(blocks, start=2):
        x = _mb_conv(x, num_group=depth, num_filter=depth, kernel=(3, 3), pad=(1, 1),
                     stride=(s, s), name="conv_%d_dw" % idx)
        x = _mb_conv(x, num_filter=out, kernel=(1, 1), pad=(0, 0), stride=(1, 1),
                     name="conv_%d" % idx)
    pool_size = int(resolution / 32)
    pool = sym.Pooling(data=x, kernel=(pool_size, pool_size), stride=(1, 1), pool_type="avg",
                       name="global_pool")
    flatten = sym.Flatten(data=pool, name="flatten")
    fc = sym.FullyConnected(data=flatten, num_hidden=num_classes, name="fc")
    return sym.SoftmaxOutput(data=fc, name="softmax")


MODELS = {
    "mlp": mlp,
    "lenet": lenet,
    "alexnet": alexnet,
    "vgg16": lambda: vgg(num_layers=16),
    "vgg16_bn": lambda: vgg(num_layers=16, batch_norm=True),
    "inception-bn": inception_bn,
    "googlenet": googlenet,
    "resnet-50": lambda: resnet_v2(num_layers=50),
    "resnet18_v1": lambda: resnet_v1(num_layers=18),
    "mobilenet": mobilenet,
    # 10 classes, for Fashion-MNIST (examples/train_fashion).
    "mlp-fashion": lambda: mlp(num_classes=10),
    "lenet-fashion": lambda: lenet(num_classes=10),
}


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out-dir", default=HERE, help="where to write <model>.json (default: here)")
    ap.add_argument("models", nargs="*", help="subset of %s" % ", ".join(MODELS))
    args = ap.parse_args()
    for name in args.models or MODELS:
        if name not in MODELS:
            sys.exit("gen_models.py: unknown model %r" % name)
        reset_names()
        text = to_json(MODELS[name]())
        json.loads(text)  # well-formed
        with open(os.path.join(args.out_dir, name + ".json"), "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
