# SPDX-License-Identifier: Apache-2.0
"""mxc.nd: float32 arrays on libmxrt's dependency engine (MXNet's NDArray).

Operations return at once and run when their inputs are ready; `asnumpy()`
waits. `w -= lr * g` is one fused update, as in the C++ API.
"""
from ._api import NDArray, full, waitall, zeros  # noqa: F401


def array(value):
    """An NDArray holding a float32 copy of `value` (a NumPy array, a list)."""
    return NDArray(value)


def ones(shape):
    return full(shape, 1.0)
