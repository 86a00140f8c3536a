# SPDX-License-Identifier: Apache-2.0
"""mxc.Executor: a symbol compiled in-process for training (mx::Executor)."""
from . import _api


class Executor(_api.Executor):
    """`symbol` (an mxc.sym.Symbol) bound to input shapes and compiled into a
    training library, or taken from the cache: forward(), backward() (the
    gradient of the loss heads' losses summed over the batch), outputs,
    gradient(name) and param(name) as NDArrays, so that

        exe.param(name) -= lr / batch * exe.gradient(name)

    is an SGD step. inputs: {name: shape} of the data (labels' shapes are
    inferred); params: an MXNet .params file to start from (else seeded
    initial values); loss: a loss head for a symbol that ends at its outputs
    (softmax-ce, l2, l1, sigmoid-bce); cache_dir: compiled libraries kept
    across processes."""

    def __init__(self, symbol, inputs, threads=1, seed=0, params=None, loss=None,
                 cache_dir=None):
        super().__init__(symbol.tojson(), {k: tuple(v) for k, v in inputs.items()},
                         threads, seed, params or "", loss or "", cache_dir or "")
