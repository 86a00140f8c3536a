# SPDX-License-Identifier: Apache-2.0
"""mxc.sym: networks as MXNet symbols, built in Python.

    import mxc
    from mxc import sym
    data = sym.Variable("data")
    fc1 = sym.FullyConnected(data, num_hidden=128, name="fc1")
    net = sym.SoftmaxOutput(sym.Activation(fc1, act_type="relu"), name="softmax")
    net.list_arguments()  # ['data', 'fc1_weight', 'fc1_bias', 'softmax_label']

One function per MXNet operator mxc implements (generated with the C++ API's
from the mx dialect's definitions: MXNet's names, operands and defaults); a
parameter operand left out becomes the variable `<name>_<operand>`. A Symbol
is MXNet symbol JSON underneath: `tojson()` writes what MXNet 1.x loads and
`mxc` compiles, and shape inference runs the compiler's own (mxc.Executor
binds it).
"""
import json
import threading

from . import _ops
from ._runtime import Error

_names = threading.local()


def _auto_name(op):
    counters = getattr(_names, "counters", None)
    if counters is None:
        counters = _names.counters = {}
    base = op.lower().lstrip("_")
    n = counters.get(base, 0)
    counters[base] = n + 1
    return "%s%d" % (base, n)


def _text(value):
    """An attribute's value as MXNet writes it in symbol JSON."""
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, (tuple, list)):
        return "(" + ", ".join(str(int(v)) for v in value) + \
            ("," if len(value) == 1 else "") + ")"
    return str(value)


class _Node:
    __slots__ = ("op", "name", "attrs", "inputs")

    def __init__(self, op, name, attrs, inputs):
        self.op, self.name, self.attrs, self.inputs = op, name, attrs, inputs


class Symbol:
    """One or more outputs of a graph of operator nodes over variables."""

    def __init__(self, outputs):
        self._outputs = list(outputs)  # [(node, index)]

    # -- construction -------------------------------------------------------

    @staticmethod
    def Variable(name, shape=None, **attrs):
        """A free variable: an input, a learned parameter or an auxiliary
        state (`shape` becomes MXNet's `__shape__`)."""
        text = {k: _text(v) for k, v in attrs.items()}
        if shape is not None:
            text["__shape__"] = _text(shape)
        return Symbol([(_Node("null", name, text, []), 0)])

    @staticmethod
    def Group(symbols):
        """The outputs of every symbol, in order, as one symbol."""
        return Symbol([o for s in symbols for o in s._outputs])

    @staticmethod
    def fromjson(text):
        """A Symbol from MXNet symbol JSON (checked by the compiler's reader)."""
        from . import _api
        graph = json.loads(_api.canonical_json(text))
        nodes = []
        for n in graph["nodes"]:
            nodes.append(_Node(n["op"], n["name"], dict(n.get("attrs", {})),
                               [(nodes[i], int(k)) for i, k, *_ in n["inputs"]]))
        return Symbol([(nodes[i], int(k)) for i, k, *_ in graph["heads"]])

    @staticmethod
    def load(path):
        with open(path) as f:
            return Symbol.fromjson(f.read())

    # -- the graph ----------------------------------------------------------

    def _order(self):
        order, seen = [], set()

        def visit(node):
            if id(node) in seen:
                return
            seen.add(id(node))
            for source, _ in node.inputs:
                visit(source)
            order.append(node)

        for node, _ in self._outputs:
            visit(node)
        return order

    def tojson(self):
        """MXNet symbol JSON of the graph (nodes in topological order)."""
        order = self._order()
        index = {id(n): i for i, n in enumerate(order)}
        nodes = []
        for n in order:
            entry = {"op": n.op, "name": n.name,
                     "inputs": [[index[id(s)], k, 0] for s, k in n.inputs]}
            if n.attrs:
                entry["attrs"] = dict(n.attrs)
            nodes.append(entry)
        return json.dumps({
            "nodes": nodes,
            "arg_nodes": [i for i, n in enumerate(order) if n.op == "null"],
            "node_row_ptr": list(range(len(order) + 1)),
            "heads": [[index[id(n)], k, 0] for n, k in self._outputs],
            "attrs": {"mxnet_version": ["int", 10900]}}, indent=2)

    def save(self, path):
        with open(path, "w") as f:
            f.write(self.tojson())

    @property
    def name(self):
        if len(self._outputs) != 1:
            raise Error("a symbol of %d outputs has no one name" % len(self._outputs))
        return self._outputs[0][0].name

    def __len__(self):
        return len(self._outputs)

    def __getitem__(self, index):
        return Symbol([self._outputs[index]])

    def list_arguments(self):
        from . import _api
        return _api.list_arguments(self.tojson())

    def list_outputs(self):
        from . import _api
        return _api.list_outputs(self.tojson())

    def list_auxiliary_states(self):
        from . import _api
        return _api.list_auxiliary_states(self.tojson())

    def infer_shape(self, **known):
        """(argument shapes, output shapes, auxiliary state shapes) from the
        shapes of some arguments, by the compiler's shape inference."""
        from . import _api
        return _api.infer_shape(self.tojson(), {k: tuple(v) for k, v in known.items()})

    def attr(self, key):
        return self._outputs[0][0].attrs.get(key)

    def __repr__(self):
        names = ", ".join(n.name for n, _ in self._outputs)
        return "<Symbol %s>" % names

    # -- arithmetic, as MXNet's Python operators ------------------------------

    def _binary(self, other, op, scalar_op, reverse=False):
        if isinstance(other, Symbol):
            a, b = (other, self) if reverse else (self, other)
            return _make(op, [a, b], {})
        return _make(scalar_op, [self], {"scalar": float(other)})

    def __add__(self, o):
        return self._binary(o, "elemwise_add", "_plus_scalar")

    def __radd__(self, o):
        return self._binary(o, "elemwise_add", "_plus_scalar")

    def __sub__(self, o):
        return self._binary(o, "elemwise_sub", "_minus_scalar")

    def __rsub__(self, o):
        return self._binary(o, "elemwise_sub", "_rminus_scalar", reverse=True)

    def __mul__(self, o):
        return self._binary(o, "elemwise_mul", "_mul_scalar")

    def __rmul__(self, o):
        return self._binary(o, "elemwise_mul", "_mul_scalar")

    def __truediv__(self, o):
        return self._binary(o, "elemwise_div", "_div_scalar")

    def __rtruediv__(self, o):
        return self._binary(o, "elemwise_div", "_rdiv_scalar", reverse=True)


Variable = Symbol.Variable
Group = Symbol.Group
load = Symbol.load
fromjson = Symbol.fromjson


def _make(op, operands, kwargs, name=None):
    """A node of operator `op` on `operands` (positional data operands, in
    order) with keyword attributes and parameter operands."""
    spec = _ops.OPS[op]
    name = name or _auto_name(op)
    known = {a for a, _, _ in spec["attrs"]} | {o for o, _, _ in spec["operands"]}
    unknown = sorted(set(kwargs) - known)
    if unknown:
        raise Error("%s '%s': unknown argument%s %s" % (
            op, name, "s" if len(unknown) > 1 else "", ", ".join(unknown)))
    attrs, values = {}, dict(kwargs)
    for attr, kind, default in spec["attrs"]:
        if attr in values:
            value = values.pop(attr)
            if value is not None:
                attrs[attr] = _text(value)
        elif default is None and attr != "num_outputs":
            raise Error("%s '%s': attribute '%s' is required" % (op, name, attr))
    inputs, positional = [], list(operands)
    for operand, role, optional in spec["operands"]:
        if role in ("param", "aux"):
            given = values.pop(operand, None)
            # As the C++ API: an optional bias unless no_bias, an optional
            # gamma (LeakyReLU's) for prelu only.
            wanted = not (optional and operand == "bias" and attrs.get("no_bias") == "True") \
                and not (optional and operand == "gamma" and
                         attrs.get("act_type", "leaky") != "prelu")
            if given is None and wanted:
                given = Variable("%s_%s" % (name, operand))
            if given is not None:
                inputs += given._outputs
        elif role == "variadic":
            rest = values.pop(operand, None)
            if rest is None:
                rest, positional = positional, []
            inputs += [o for s in rest for o in s._outputs]
        else:
            given = values.pop(operand, None)
            if given is None:
                if not positional:
                    raise Error("%s '%s': operand '%s' is missing" % (op, name, operand))
                given = positional.pop(0)
            if not isinstance(given, Symbol):
                raise Error("%s '%s': operand '%s' is not a Symbol" % (op, name, operand))
            inputs += given._outputs
    if positional:
        raise Error("%s '%s': %d operands too many" % (op, name, len(positional)))
    node = _Node(op, name, attrs, inputs)
    count = spec["outputs"]
    if spec["variable_outputs"]:
        count = int(attrs.get("num_outputs", count))
    return Symbol([(node, k) for k in range(count)])


def _operator(op):
    spec = _ops.OPS[op]

    def build(*operands, name=None, **kwargs):
        return _make(op, operands, kwargs, name)

    build.__name__ = op
    build.__doc__ = "%s\n\nOperands: %s. Attributes: %s." % (
        spec["doc"], ", ".join("%s (%s)" % tuple(o[:2]) for o in spec["operands"]),
        ", ".join("%s=%r" % (a, d) if d is not None else "%s (required)" % a
                  for a, _, d in spec["attrs"]))
    return build


for _op in _ops.OPS:
    globals()[_op] = _operator(_op)
