# SPDX-License-Identifier: Apache-2.0
"""mxc from Python: compile MXNet and ONNX models ahead of time and run them.

    import mxc, numpy as np
    lib = mxc.compile("resnet18.onnx")              # or mxc.load("libresnet18.so")
    logits = lib(np.zeros((8, 3, 224, 224), np.float32))

`compile` drives the `mxc` tool (the same options, files and messages);
`load` opens a compiled library through libmxrt, which runs it. Errors of
either raise `mxc.Error` with the message the tool or the runtime gives.
"""
from ._runtime import Error, Library, TensorInfo, load  # noqa: F401
from .compiler import compile, tool_path  # noqa: F401

__all__ = ["Error", "Library", "TensorInfo", "compile", "load", "tool_path"]
