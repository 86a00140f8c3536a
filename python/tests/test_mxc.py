# SPDX-License-Identifier: Apache-2.0
# The Python package against NumPy references: compile (ONNX and MXNet, a
# dynamic batch, the tool's options), load, run (positional and by name, from
# several threads), train (train_step against a NumPy SGD step, parameters in
# and out, save_params), and the errors of each.
import os
import threading

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import mxc

REPO = os.environ.get("MXC_TEST_REPO", os.path.join(os.path.dirname(__file__), "..", ".."))
MLP_JSON = os.path.join(REPO, "examples", "models", "mlp.json")


@pytest.fixture(scope="module")
def affine(tmp_path_factory):
    """An ONNX model y = relu(x W + b), z = y.sum(axis=1), with a dynamic batch N,
    and its weights."""
    rng = np.random.default_rng(0)
    w = rng.normal(0, 1, (6, 4)).astype(np.float32)
    b = rng.normal(0, 1, 4).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["xw"]),
         helper.make_node("Add", ["xw", "b"], ["pre"]),
         helper.make_node("Relu", ["pre"], ["y"]),
         helper.make_node("ReduceSum", ["y", "axes"], ["z"], keepdims=0)],
        "affine",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 6])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 4]),
         helper.make_tensor_value_info("z", TensorProto.FLOAT, ["N"])],
        [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b"),
         numpy_helper.from_array(np.array([1], np.int64), "axes")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    path = tmp_path_factory.mktemp("affine") / "affine.onnx"
    onnx.save(model, str(path))
    return str(path), w, b


def reference(x, w, b):
    y = np.maximum(x @ w + b, 0)
    return y, y.sum(axis=1)


def test_compile_describes_and_runs_any_batch(affine):
    path, w, b = affine
    lib = mxc.compile(path)
    assert lib.name == "affine"
    assert [(t.name, t.shape, t.dtype) for t in lib.inputs] == [("x", ("N", 6), np.float32)]
    assert [(t.name, t.shape) for t in lib.outputs] == [("y", ("N", 4)), ("z", ("N",))]
    for n in (1, 3, 8):
        x = np.random.default_rng(n).normal(0, 1, (n, 6)).astype(np.float32)
        y, z = lib(x)
        want_y, want_z = reference(x, w, b)
        assert y.shape == (n, 4) and z.shape == (n,)
        np.testing.assert_allclose(y, want_y, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(z, want_z, rtol=1e-5, atol=1e-5)
        # By name, from a float64 array that is not contiguous (converted).
        y2, _ = lib(x=np.asfortranarray(x.astype(np.float64)))
        np.testing.assert_allclose(y2, want_y, rtol=1e-5, atol=1e-6)


def test_compile_takes_the_tools_options(affine, tmp_path):
    path, w, b = affine
    out = tmp_path / "libfixed.so"
    lib = mxc.compile(path, inputs={"x": (2, 6)}, output=out, emit="so")
    assert out.exists() and (tmp_path / "fixed.h").exists()
    assert lib.inputs[0].shape == (2, 6)
    x = np.ones((2, 6), np.float32)
    np.testing.assert_allclose(lib(x)[0], reference(x, w, b)[0], rtol=1e-5)
    # The same library again, by path.
    again = mxc.load(str(out))
    np.testing.assert_array_equal(again(x)[1], lib(x)[1])


def test_threads_run_their_own_instances(affine):
    path, w, b = affine
    lib = mxc.compile(path, threads=2)
    assert lib.threads == 2
    xs = [np.random.default_rng(i).normal(0, 1, (5, 6)).astype(np.float32) for i in range(4)]
    results = [None] * len(xs)

    def work(i):
        for _ in range(20):
            results[i] = lib(xs[i])[0]

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(xs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for x, got in zip(xs, results):
        np.testing.assert_allclose(got, reference(x, w, b)[0], rtol=1e-5, atol=1e-6)


def test_errors_carry_the_messages(affine, tmp_path):
    path, _, _ = affine
    with pytest.raises(mxc.Error, match="nope.onnx"):
        mxc.compile(str(tmp_path / "nope.onnx"))
    with pytest.raises(mxc.Error, match="unknown argument|Unknown command line"):
        mxc.compile(path, not_an_option=3)
    lib = mxc.compile(path)
    with pytest.raises(mxc.Error, match="input 'x': expected shape Nx6 float32, got 2x5"):
        lib(np.zeros((2, 5), np.float32))
    with pytest.raises(mxc.Error, match="input 'x' is missing"):
        lib()
    with pytest.raises(mxc.Error, match="has no input 'q'"):
        lib(q=np.zeros((1, 6), np.float32))
    with pytest.raises(mxc.Error, match="has no function 'train_step'"):
        lib.call("train_step")
    with pytest.raises(mxc.Error, match="not_a_library"):
        mxc.load(str(tmp_path / "not_a_library.so"))


def softmax(v):
    e = np.exp(v - v.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def test_train_step_is_sgd_on_the_mean_cross_entropy(tmp_path):
    batch, lr = 4, 0.1
    lib = mxc.compile(MLP_JSON, inputs={"data": (batch, 784)}, train=True,
                      output=tmp_path / "libmlp.so")
    assert lib.trainable and lib.functions == ["forward", "grad", "train_step"]
    assert [t.name for t in lib.function_inputs("train_step")] == [
        "data", "softmax_label", "learning_rate"]
    rng = np.random.default_rng(5)
    params = {p.name: lib.get_param(p.name) for p in lib.params}
    # Parameters in: smaller weights, so that every unit's gradient matters.
    for name, value in params.items():
        params[name] = (value * 0.5).astype(np.float32)
        lib.set_param(name, params[name])
    np.testing.assert_array_equal(lib.get_param("fc1_bias"), params["fc1_bias"])
    x = rng.normal(0, 1, (batch, 784)).astype(np.float32)
    label = rng.integers(0, 1000, batch).astype(np.float32)

    # One SGD step in NumPy (MXNet's FullyConnected: x W^T + b; rescale 1/batch).
    h1 = np.maximum(x @ params["fc1_weight"].T + params["fc1_bias"], 0)
    h2 = np.maximum(h1 @ params["fc2_weight"].T + params["fc2_bias"], 0)
    p = softmax(h2 @ params["fc3_weight"].T + params["fc3_bias"])
    d3 = p.copy()
    d3[np.arange(batch), label.astype(int)] -= 1
    d3 /= batch
    d2 = (d3 @ params["fc3_weight"]) * (h2 > 0)
    d1 = (d2 @ params["fc2_weight"]) * (h1 > 0)
    grads = {"fc3_weight": d3.T @ h2, "fc3_bias": d3.sum(0),
             "fc2_weight": d2.T @ h1, "fc2_bias": d2.sum(0),
             "fc1_weight": d1.T @ x, "fc1_bias": d1.sum(0)}

    (out,) = lib.call("train_step", x, label, np.float32(lr))
    np.testing.assert_allclose(out, p, rtol=1e-4, atol=1e-6)
    for name, g in grads.items():
        np.testing.assert_allclose(lib.get_param(name), params[name] - lr * g,
                                   rtol=1e-4, atol=1e-6, err_msg=name)
    saved = tmp_path / "after.params"
    lib.save_params(str(saved))
    fresh = mxc.load(str(tmp_path / "libmlp.so"))
    fresh.load_params(str(saved))
    np.testing.assert_array_equal(fresh.get_param("fc3_weight"), lib.get_param("fc3_weight"))
    with pytest.raises(mxc.Error, match="parameter 'fc1_bias' has shape \\(128,\\)"):
        lib.set_param("fc1_bias", np.zeros(3, np.float32))
    with pytest.raises(mxc.Error, match="fc9"):
        lib.get_param("fc9")


def test_resnet18_example_matches_pytorch():
    """examples/python/resnet18.py: torchvision's ResNet-18 exported with a
    dynamic batch, compiled and run on a batch of 3, within 1e-4 of PyTorch."""
    pytest.importorskip("torchvision")
    import importlib.util
    spec = importlib.util.spec_from_file_location(
        "resnet18_example", os.path.join(REPO, "examples", "python", "resnet18.py"))
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    assert example.main(batch=3) < 1e-4


def test_dlpack_both_ways(affine):
    """A torch tensor goes in through DLPack, and the NumPy outputs go out to
    torch the same way, without copies."""
    torch = pytest.importorskip("torch")
    path, w, b = affine
    lib = mxc.compile(path)
    x = torch.randn(3, 6)
    y, z = lib(x)
    want_y, _ = reference(x.numpy(), w, b)
    np.testing.assert_allclose(y, want_y, rtol=1e-5, atol=1e-6)
    back = torch.from_dlpack(y)
    assert back.data_ptr() == y.ctypes.data
    assert torch.allclose(back, torch.from_numpy(want_y), atol=1e-6)
