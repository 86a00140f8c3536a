# SPDX-License-Identifier: Apache-2.0
"""mxc.compile: the `mxc` tool from Python, loading what it writes.

The tool is found beside the package (an install's bin/, or the build tree's
bin/ for a package imported from build/python), or at $MXC_TOOL.
"""
import os
import subprocess
import tempfile

from . import _config
from ._runtime import Error, load


def tool_path():
    """The `mxc` executable mxc.compile runs."""
    given = os.environ.get("MXC_TOOL")
    if given:
        return given
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.path.normpath(os.path.join(here, _config.TOOL_FROM_PACKAGE))
    if not os.path.exists(path):
        raise Error("the mxc tool is not at %s (set MXC_TOOL to its path)" % path)
    return path


def _shape_text(shape):
    if isinstance(shape, str):
        return shape
    return "x".join("?" if d is None else str(d) for d in shape)


def _option_args(options):
    args = []
    for key, value in options.items():
        flag = "--" + key.replace("_", "-")
        if value is True:
            args.append(flag)
        elif value is False or value is None:
            continue
        elif isinstance(value, (list, tuple)):
            args += ["%s=%s" % (flag, v) for v in value]
        else:
            args.append("%s=%s" % (flag, value))
    return args


def compile(model, inputs=None, params=None, train=False, target="cpu", output=None,
            threads=None, **options):
    """Compiles `model` (an MXNet symbol JSON or an ONNX file) and loads it.

    inputs:  {name: shape}, a shape a tuple (None for a dynamic extent) or the
             tool's text ("Nx3x224x224"); names shared between inputs name one
             dynamic dimension.
    params:  an MXNet .params file.
    train:   a training library (grad and train_step beside forward).
    output:  where the library goes (with its header beside it, as the tool
             writes them); by default a temporary folder that lives as long as
             the returned Library.
    options: any other option of the tool, by its name with underscores
             (buckets="1,8,64", dim=["N=1..64"], optimizer="adam", O=2, ...).
    threads: the Library's thread count.
    Raises mxc.Error with the tool's message when it fails.
    """
    args = [tool_path(), os.fspath(model)]
    for name, shape in (inputs or {}).items():
        args += ["--input", "%s=%s" % (name, _shape_text(shape))]
    if params is not None:
        args += ["--params", os.fspath(params)]
    if train:
        args.append("--train")
    if target != "cpu":
        args.append("--target=%s" % target)
    args += _option_args(options)
    keep = None
    if output is None:
        keep = tempfile.TemporaryDirectory(prefix="mxc-")
        stem = os.path.splitext(os.path.basename(os.fspath(model)))[0]
        name = "".join(c if c.isalnum() else "_" for c in stem) or "model"
        output = os.path.join(keep.name, "lib%s.so" % name)
    args += ["-o", os.fspath(output), "--quiet"]
    run = subprocess.run(args, capture_output=True, text=True)
    if run.returncode != 0:
        if keep is not None:
            keep.cleanup()
        message = run.stderr.strip() or "exit status %d" % run.returncode
        raise Error(message.removeprefix("mxc: error: "))
    library = load(output, threads=threads)
    library._keep = keep  # the temporary folder goes with the library
    return library
