# SPDX-License-Identifier: Apache-2.0
"""mxc from Python: compile MXNet and ONNX models ahead of time and run them.

    import mxc, numpy as np
    lib = mxc.compile("resnet18.onnx")              # or mxc.load("libresnet18.so")
    logits = lib(np.zeros((8, 3, 224, 224), np.float32))

`compile` drives the `mxc` tool (the same options, files and messages);
`load` opens a compiled library through libmxrt, which runs it. `mxc.sym`,
`mxc.nd` and `mxc.Executor` are the C++ host API: symbols, NDArrays and
in-process compiled training. Errors raise `mxc.Error` with the message the
tool, the runtime or the API gives.
"""
from ._runtime import Error, Library, TensorInfo, load  # noqa: F401
from .compiler import compile, tool_path  # noqa: F401

__all__ = ["Error", "Executor", "KVStore", "Library", "TensorInfo", "compile", "load", "nd",
           "sym", "tool_path"]


def __getattr__(name):
    # The C++ host API (mxc.sym, mxc.nd, mxc.Executor) links the compiler:
    # loaded on first use, so that running libraries needs libmxrt alone.
    import importlib
    if name in ("sym", "nd"):
        return importlib.import_module("." + name, __name__)
    if name == "Executor":
        return importlib.import_module(".executor", __name__).Executor
    if name == "KVStore":  # libmxrt_kvstore and Open MPI, on first use
        return importlib.import_module("._kvstore", __name__).KVStore
    raise AttributeError("module 'mxc' has no attribute %r" % name)
