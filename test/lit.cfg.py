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
    ("%mxc-gen-models", os.path.join(tools, "mxc-gen-models")),
    ("%mxc-train-mlp", os.path.join(tools, "mxc-train-mlp")),
    ("%mxc-cpp-tour", os.path.join(tools, "mxc-cpp-tour")),
    ("%mxc", os.path.join(tools, "mxc")),
    ("%mxrun", os.path.join(tools, "mxrun")),
    ("%mxrt-stress", os.path.join(tools, "mxrt-stress")),
    ("%python", config.python_executable),
    ("%cc", config.c_compiler),
    ("%mxrt_include", config.mxrt_include_dir),
    ("%mxrt_libdir", config.mxrt_lib_dir),
    ("%testdata", config.shared_testdata_dir),
    ("%examples", os.path.join(config.mxc_src_root, "examples")),
    ("%build_root", config.mxc_obj_root),
])
# A sanitized build (-DMXC_SANITIZE): AddressSanitizer reserves terabytes
# of address space, so %limit-memory (ulimit -v 4 GiB in a plain build)
# limits nothing there; ASan's allocator reports what the limit would catch.
# Programs that tests compile (%cc) link the sanitized libmxrt, so they get
# the sanitizers' runtimes too.
if config.mxc_sanitize:
    config.available_features.add("sanitizer")
    config.substitutions.append(("%limit-memory", "true"))
    config.substitutions = [
        (key, value + " -fsanitize=" + config.mxc_sanitize if key == "%cc" else value)
        for key, value in config.substitutions]
else:
    config.substitutions.append(("%limit-memory", "ulimit -v 4194304"))
# Tests that need the shared model files say `REQUIRES: shared-testdata`.
if os.path.isdir(config.shared_testdata_dir):
    config.available_features.add("shared-testdata")
# The ONNX backend test suite from Debian's libonnx-testdata.
if os.path.isdir("/usr/share/libonnx-testdata/data"):
    config.available_features.add("onnx-testdata")
# PyTorch (Debian's python3-torch) gives reference results, and with torchvision
# (python3-torchvision) real models to export; looked up without importing.
# Fashion-MNIST (dataset-fashion-mnist) is the training example's data.
import shutil
import subprocess


def _has_modules(*names):
    test = " and ".join("u.find_spec(%r)" % n for n in names)
    return subprocess.run([config.python_executable, "-c",
                           "import importlib.util as u, sys; sys.exit(not (%s))" % test],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0


if _has_modules("torch"):
    config.available_features.add("torch")
if _has_modules("torch", "torchvision"):
    config.available_features.add("torchvision")
if os.path.isdir("/usr/share/datasets/fashion-mnist"):
    config.available_features.add("fashion-mnist")
# Open MPI's mpirun (openmpi-bin) launches the distributed example; as root
# it needs --allow-run-as-root, and containers forbid vader's cross-memory
# attach. Bounded, so that a hung job fails the test instead of CI.
if shutil.which("mpirun"):
    config.available_features.add("mpi")
    mpirun = "timeout 600 mpirun --oversubscribe"
    if os.geteuid() == 0:
        mpirun += " --allow-run-as-root"
    mpirun += " --mca btl_vader_single_copy_mechanism none"
    config.substitutions.append(("%mpirun", mpirun))
# `lit --param large=1`: the tests that need gigabytes (large-weights.test).
if lit_config.params.get("large", "0") == "1":
    config.available_features.add("large")
# cpack's .deb and dpkg-deb to look into it (Debian's dpkg).
if shutil.which("dpkg-deb") and shutil.which("cpack"):
    config.available_features.add("dpkg")
# The build's Python package (-DMXC_BUILD_PYTHON, off in the sanitizer
# builds): tests that drive a library step by step import it.
if os.path.exists(os.path.join(config.mxc_obj_root, "python", "mxc", "__init__.py")):
    config.available_features.add("python-package")
    config.substitutions.append(("%build_python", os.path.join(config.mxc_obj_root, "python")))
# Graphviz renders mxc --emit=dot's graphs (Debian's graphviz).
if shutil.which("dot"):
    config.available_features.add("graphviz")
# The CUDA toolkit's ptxas and fatbinary (the --target=cuda fatbins; PTX
# alone needs only LLVM's NVPTX back end), and cuobjdump to list them.
if shutil.which("ptxas") and shutil.which("fatbinary"):
    config.available_features.add("cuda-toolkit")
if shutil.which("cuobjdump"):
    config.available_features.add("cuobjdump")
# An NVIDIA GPU and its driver (tests that run CUDA models need one; the
# others check the error a machine without one gives).
if os.path.exists("/dev/nvidiactl") and (
        os.path.exists("/usr/lib/x86_64-linux-gnu/libcuda.so.1") or
        shutil.which("nvidia-smi")):
    config.available_features.add("nvidia-gpu")
# OpenBLAS (libopenblas-dev), bench/perf_bench.py's SGEMM peer.
if os.path.exists("/usr/include/x86_64-linux-gnu/cblas.h") or \
        os.path.exists("/usr/include/cblas.h"):
    config.available_features.add("openblas")
# ONNX Runtime for bench/perf_bench.py, once that script has installed it (npm,
# into bench/.peers); the bench's check test skips without it.

if shutil.which("node") and os.path.isdir(os.path.join(
        config.mxc_src_root, "bench", ".peers", "node_modules", "onnxruntime-node")):
    config.available_features.add("onnxruntime-node")
# The runtime cross-built for 64-bit ARM (MXC_ARM64_RUNTIME: build/aarch64)
# and qemu to run its programs: %arm-qemu runs one on an emulated core
# with every feature qemu has (SVE at 512 bits), %arm-mxrun is the ARM
# mxrun.
arm64_build = os.path.join(config.mxc_obj_root, "aarch64")
qemu = shutil.which("qemu-aarch64-static") or shutil.which("qemu-aarch64")
if qemu and os.path.exists(os.path.join(arm64_build, "bin", "mxrun")):
    config.available_features.add("aarch64-runtime")
    config.substitutions.append(
        ("%arm-qemu", qemu + " -L /usr/aarch64-linux-gnu"))
    config.substitutions.append(
        ("%arm-mxrun", qemu + " -L /usr/aarch64-linux-gnu " +
         os.path.join(arm64_build, "bin", "mxrun")))
    config.substitutions.append(("%aarch64_build", arm64_build))
