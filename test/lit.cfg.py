# SPDX-License-Identifier: Apache-2.0
# lit configuration of mxc's test suite: dialect and pass tests (mxc-opt +
# FileCheck), tool tests and the end-to-end suites (mxc + mxrun).
import os

import lit.formats
from lit.llvm import llvm_config

config.name = "mxc"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.mxc_obj_root, "test")
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py.in",
                   "runtime", "frontend"]

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

tools = config.mxc_tools_dir
config.substitutions.extend([
    ("%mxc-opt", os.path.join(tools, "mxc-opt")),
    ("%mxc", os.path.join(tools, "mxc")),
    ("%mxrun", os.path.join(tools, "mxrun")),
    ("%python", config.python_executable),
    ("%cc", config.c_compiler),
    ("%mxrt_include", config.mxrt_include_dir),
    ("%mxrt_libdir", config.mxrt_lib_dir),
    ("%testdata", config.shared_testdata_dir),
    ("%examples", os.path.join(config.mxc_src_root, "examples")),
])
# Tests that need the shared model files say `REQUIRES: shared-testdata`.
if os.path.isdir(config.shared_testdata_dir):
    config.available_features.add("shared-testdata")
# The ONNX backend test suite from Debian's libonnx-testdata.
if os.path.isdir("/usr/share/libonnx-testdata/data"):
    config.available_features.add("onnx-testdata")
# PyTorch and torchvision (Debian's python3-torch, python3-torchvision) make the
# fixtures of tests that export real models; looked up without importing them.
import subprocess
if subprocess.run([config.python_executable, "-c",
                   "import importlib.util as u, sys; "
                   "sys.exit(not (u.find_spec('torch') and u.find_spec('torchvision')))"],
                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0:
    config.available_features.add("torchvision")
