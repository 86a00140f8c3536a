# SPDX-License-Identifier: Apache-2.0
# mxc.sym, mxc.nd and mxc.Executor against NumPy: a symbol's arguments,
# outputs and inferred shapes; JSON that mxc.compile takes; the Executor's
# forward and gradients against a NumPy MLP; NDArray arithmetic and the fused
# update; the paper's Figure 2 script; and the errors.
import os

import numpy as np
import pytest

import mxc
from mxc import nd, sym

REPO = os.environ.get("MXC_TEST_REPO", os.path.join(os.path.dirname(__file__), "..", ".."))


def mlp(hidden=16, classes=4):
    data = sym.Variable("data")
    fc1 = sym.FullyConnected(data, num_hidden=hidden, name="fc1")
    act = sym.Activation(fc1, act_type="relu", name="relu1")
    fc2 = sym.FullyConnected(act, num_hidden=classes, name="fc2")
    return sym.SoftmaxOutput(fc2, name="softmax")


def test_symbol_describes_itself():
    net = mlp()
    assert net.list_arguments() == ["data", "fc1_weight", "fc1_bias", "fc2_weight",
                                    "fc2_bias", "softmax_label"]
    assert net.list_outputs() == ["softmax_output"]
    args, outs, aux = net.infer_shape(data=(8, 12))
    assert args == [(8, 12), (16, 12), (16,), (4, 16), (4,), (8,)]
    assert outs == [(8, 4)] and aux == []
    bn = sym.BatchNorm(sym.Convolution(sym.Variable("x"), kernel=(3, 3), num_filter=2,
                                       no_bias=True, name="c"), name="bn")
    assert bn.list_arguments() == ["x", "c_weight", "bn_gamma", "bn_beta"]
    assert bn.list_auxiliary_states() == ["bn_moving_mean", "bn_moving_var"]
    # Arithmetic as MXNet's Python operators, and JSON read back.
    a, b = sym.Variable("a"), sym.Variable("b")
    expr = (a + b) * 2 - 1
    again = sym.fromjson(expr.tojson())
    assert again.list_arguments() == ["a", "b"]
    assert again.tojson() == sym.fromjson(again.tojson()).tojson()


def test_symbol_and_executor_parameters_compile(tmp_path):
    """The JSON and an Executor's saved parameters compile with mxc.compile into
    a library that computes the Executor's forward."""
    net = mlp()
    path = tmp_path / "mlp-symbol.json"
    net.save(str(path))
    exe = mxc.Executor(net, {"data": (2, 12)}, seed=7)
    exe.save_params(str(tmp_path / "mlp.params"))
    lib = mxc.compile(path, inputs={"data": (2, 12)}, params=tmp_path / "mlp.params")
    assert [(t.name, t.shape) for t in lib.outputs] == [("softmax_output", (2, 4))]
    x = np.random.default_rng(2).normal(0, 1, (2, 12)).astype(np.float32)
    exe.set_input("data", x)
    exe.forward()
    np.testing.assert_allclose(lib(x), exe.outputs[0].asnumpy(), rtol=1e-5, atol=1e-7)


def test_symbol_errors():
    with pytest.raises(mxc.Error, match="attribute 'num_hidden' is required"):
        sym.FullyConnected(sym.Variable("x"))
    with pytest.raises(mxc.Error, match="unknown argument num_hiden"):
        sym.FullyConnected(sym.Variable("x"), num_hiden=3)
    with pytest.raises(mxc.Error, match="operand 'data' is missing"):
        sym.Activation(act_type="relu")
    with pytest.raises(mxc.Error, match="sum"):
        sym.elemwise_add(sym.Variable("a"), sym.Variable("b"), name="sum").infer_shape(
            a=(2, 3), b=(3, 2))


def test_executor_gradients_are_numpy_backprop():
    batch = 8
    net = mlp()
    exe = mxc.Executor(net, {"data": (batch, 12)}, seed=3)
    assert exe.param_names == ["fc1_weight", "fc1_bias", "fc2_weight", "fc2_bias"]
    rng = np.random.default_rng(1)
    x = rng.normal(0, 1, (batch, 12)).astype(np.float32)
    y = rng.integers(0, 4, batch)
    exe.set_input("data", x)
    exe.set_input("softmax_label", y.astype(np.float32))
    w = {n: exe.param(n).asnumpy() for n in exe.param_names}
    h = np.maximum(x @ w["fc1_weight"].T + w["fc1_bias"], 0)
    logits = h @ w["fc2_weight"].T + w["fc2_bias"]
    p = np.exp(logits - logits.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    exe.forward()
    np.testing.assert_allclose(exe.outputs[0].asnumpy(), p, rtol=1e-5, atol=1e-6)
    exe.backward()
    d2 = p.copy()
    d2[np.arange(batch), y] -= 1  # the cross entropy summed over the batch
    d1 = (d2 @ w["fc2_weight"]) * (h > 0)
    want = {"fc2_weight": d2.T @ h, "fc2_bias": d2.sum(0),
            "fc1_weight": d1.T @ x, "fc1_bias": d1.sum(0)}
    for name, g in want.items():
        np.testing.assert_allclose(exe.gradient(name).asnumpy(), g, rtol=1e-4, atol=1e-5,
                                   err_msg=name)
    # The imperative update, in place: the next forward reads it.
    param = exe.param("fc2_bias")
    param -= 0.5 * exe.gradient("fc2_bias")
    np.testing.assert_allclose(exe.param("fc2_bias").asnumpy(),
                               w["fc2_bias"] - 0.5 * want["fc2_bias"], rtol=1e-5, atol=1e-6)
    with pytest.raises(mxc.Error, match="fc9"):
        exe.param("fc9")


def test_ndarray_arithmetic():
    a = nd.array(np.arange(6, dtype=np.float32).reshape(2, 3))
    b = nd.array(np.full((2, 3), 2, np.float32))
    assert a.shape == (2, 3)
    np.testing.assert_array_equal((a + b).asnumpy(), np.arange(6).reshape(2, 3) + 2)
    np.testing.assert_array_equal((a * b).asnumpy(), np.arange(6).reshape(2, 3) * 2)
    c = a.copy()
    c -= 0.25 * b
    c *= 2.0
    np.testing.assert_allclose(c.asnumpy(), (np.arange(6).reshape(2, 3) - 0.5) * 2)
    c[:] = 7.0
    np.testing.assert_array_equal(np.asarray(c), np.full((2, 3), 7, np.float32))
    np.testing.assert_array_equal(nd.zeros((3,)).asnumpy(), np.zeros(3))
    nd.waitall()


def test_figure2_trains_fashion_mnist():
    """examples/python/train_mlp.py: the symbolic MLP trained by imperative
    updates for an epoch of Fashion-MNIST reaches 80% on the test set."""
    if not os.path.exists("/usr/share/datasets/fashion-mnist"):
        pytest.skip("needs Debian's dataset-fashion-mnist")
    import importlib.util
    spec = importlib.util.spec_from_file_location(
        "train_mlp", os.path.join(REPO, "examples", "python", "train_mlp.py"))
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    assert example.main(epochs=1) > 0.80
