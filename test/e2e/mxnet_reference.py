# SPDX-License-Identifier: Apache-2.0
#
# MXNet's side of the end-to-end fixtures, for gen_fixtures.py (which holds the cases): what MXNet
# itself would write and compute, since MXNet is not installed to do it. That is its file formats
# (the layout of symbol JSON, NDArray-list .params files) and NumPy references for its operators
# (float64 math on float32 data, written from MXNet's operator definitions), plus the PyTorch
# cross-check of the convolution, pooling, LRN, BatchNorm and activation references. Nothing here
# knows about case folders.
"""MXNet file formats and NumPy operator references for the mxc end-to-end fixtures."""

import json
import math
import struct

import numpy as np

# ----------------------------------------------------------------------------------------------
# symbol JSON (laid out as MXNet's saver writes it)
# ----------------------------------------------------------------------------------------------

MXNET_VERSION = 10600  # what a current (1.6) MXNet writes in "attrs": {"mxnet_version": ...}

# Outputs of an op as MXNet counts them in node_row_ptr (hidden ones included); default 1.
NUM_OUTPUTS = {"BatchNorm": 3, "Dropout": 2, "LRN": 2}


def dump_like_mxnet(graph):
    """JSON laid out as MXNet's saver lays it out: one line per node field and top-level list."""
    inline = lambda v: json.dumps(v, separators=(", ", ": "))
    nodes = ",\n".join("    {\n" + ",\n".join("      %s: %s" % (inline(k), inline(v))
                                               for k, v in nd.items()) + "\n    }"
                       for nd in graph["nodes"])
    rest = "".join(",\n  %s: %s" % (inline(k), inline(v))
                   for k, v in graph.items() if k != "nodes")
    return '{\n  "nodes": [\n%s\n  ]%s\n}\n' % (nodes, rest)


# ----------------------------------------------------------------------------------------------
# .params writer (MXNet NDArray list files)
# ----------------------------------------------------------------------------------------------

LIST_MAGIC = 0x112
V1_MAGIC = 0xF993FAC8
V2_MAGIC = 0xF993FAC9
V3_MAGIC = 0xF993FACA
DTYPE_FLAGS = {
    np.dtype(np.float32): 0, np.dtype(np.float64): 1, np.dtype(np.float16): 2,
    np.dtype(np.uint8): 3, np.dtype(np.int32): 4, np.dtype(np.int8): 5, np.dtype(np.int64): 6,
}
CPU_CONTEXT = struct.pack("<ii", 1, 0)  # dev_type kCPU, dev_id 0


def ndarray_bytes(arr, fmt="v2"):
    """One NDArray record as NDArray::Save (v2/v3) or the older layouts NDArray::Load reads."""
    arr = np.ascontiguousarray(arr)
    flag = struct.pack("<i", DTYPE_FLAGS[arr.dtype])
    data = arr.astype(arr.dtype.newbyteorder("<"), copy=False).tobytes()
    dims64 = struct.pack("<I", arr.ndim) + struct.pack("<%dq" % arr.ndim, *arr.shape)
    if fmt in ("v2", "v3"):
        magic = V2_MAGIC if fmt == "v2" else V3_MAGIC
        head = struct.pack("<Ii", magic, 0) + dims64  # magic, storage type kDefaultStorage
    elif fmt == "v1":
        head = struct.pack("<I", V1_MAGIC) + dims64
    elif fmt == "legacy":  # no magic: the first u32 is ndim, dims are u32
        head = struct.pack("<I", arr.ndim) + struct.pack("<%dI" % arr.ndim, *arr.shape)
    else:
        raise ValueError(fmt)
    return head + CPU_CONTEXT + flag + data


def params_bytes(named_arrays, fmt="v2"):
    """A whole .params file: header, the arrays, then their names ("arg:x" / "aux:x")."""
    out = [struct.pack("<QQ", LIST_MAGIC, 0), struct.pack("<Q", len(named_arrays))]
    out += [ndarray_bytes(a, fmt) for _, a in named_arrays]
    out.append(struct.pack("<Q", len(named_arrays)))
    for name, _ in named_arrays:
        b = name.encode()
        out.append(struct.pack("<Q", len(b)) + b)
    return b"".join(out)


# ----------------------------------------------------------------------------------------------
# NumPy references (float64 math on float32 data), written from MXNet's operator definitions
# ----------------------------------------------------------------------------------------------

TORCH_CHECKS = []  # (kind, kwargs, result): re-run through PyTorch by cross_check_with_torch()


def conv_nd(x, w, b, stride, pad, dilate, groups):
    """MXNet Convolution (NCW / NCHW): weight (F, C/groups, k...), symmetric zero padding."""
    n, c = x.shape[:2]
    nd = x.ndim - 2
    f, k = w.shape[0], w.shape[2:]
    cg, fg = c // groups, f // groups
    xp = np.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in pad])
    osz = [(x.shape[2 + i] + 2 * pad[i] - dilate[i] * (k[i] - 1) - 1) // stride[i] + 1
           for i in range(nd)]
    out = np.zeros((n, f) + tuple(osz))
    for g in range(groups):
        xg, wg = xp[:, g * cg:(g + 1) * cg], w[g * fg:(g + 1) * fg]
        for kidx in np.ndindex(*k):
            win = tuple(slice(kidx[i] * dilate[i],
                              kidx[i] * dilate[i] + stride[i] * (osz[i] - 1) + 1, stride[i])
                        for i in range(nd))
            patch = xg[(slice(None), slice(None)) + win]
            out[:, g * fg:(g + 1) * fg] += np.einsum(
                "nc...,fc->nf...", patch, wg[(slice(None), slice(None)) + kidx])
    if b is not None:
        out += b.reshape((1, f) + (1,) * nd)
    TORCH_CHECKS.append(("conv", dict(x=x, w=w, b=b, stride=stride, pad=pad, dilate=dilate,
                                      groups=groups), out))
    return out


def pool_nd(x, pool_type, kernel=None, stride=None, pad=None, convention="valid",
            count_include_pad=True, global_pool=False):
    """MXNet Pooling (src/operator/nn/pool.h): windows clipped to the input for max; for avg the
    divisor is the window clipped to the *padded* input (count_include_pad) or to the input."""
    nd = x.ndim - 2
    sp = x.shape[2:]
    if global_pool:
        kernel, stride, pad = tuple(sp), (1,) * nd, (0,) * nd
    stride = stride or (1,) * nd
    pad = pad or (0,) * nd
    if convention == "valid":
        osz = [1 + (sp[i] + 2 * pad[i] - kernel[i]) // stride[i] for i in range(nd)]
    else:  # "full": ceil
        osz = [1 + int(math.ceil((sp[i] + 2 * pad[i] - kernel[i]) / stride[i]))
               for i in range(nd)]
    out = np.zeros(x.shape[:2] + tuple(osz))
    for o in np.ndindex(*osz):
        lo = [o[i] * stride[i] - pad[i] for i in range(nd)]
        hi = [min(lo[i] + kernel[i], sp[i] + pad[i]) for i in range(nd)]
        pool_size = int(np.prod([hi[i] - lo[i] for i in range(nd)]))
        lo = [max(v, 0) for v in lo]
        hi = [min(hi[i], sp[i]) for i in range(nd)]
        win = x[(slice(None), slice(None)) + tuple(slice(lo[i], hi[i]) for i in range(nd))]
        assert win.size > 0, "empty pooling window: pick another shape"
        red = tuple(range(2, 2 + nd))
        if pool_type == "max":
            v = win.max(axis=red)
        elif pool_type == "sum":
            v = win.sum(axis=red)
        else:
            if not count_include_pad:
                pool_size = int(np.prod([hi[i] - lo[i] for i in range(nd)]))
            v = win.sum(axis=red) / pool_size
        out[(slice(None), slice(None)) + o] = v
    TORCH_CHECKS.append(("pool", dict(x=x, pool_type=pool_type, kernel=kernel, stride=stride,
                                      pad=pad, convention=convention,
                                      count_include_pad=count_include_pad), out))
    return out


def lrn(x, nsize, alpha=1e-4, beta=0.75, knorm=2.0):
    """MXNet LRN: x / (knorm + alpha/nsize * sum over the nsize channels around c of x^2)^beta."""
    c = x.shape[1]
    half = nsize // 2
    sq = x * x
    out = np.empty_like(x)
    for ch in range(c):
        s = sq[:, max(0, ch - half):min(c, ch + half + 1)].sum(axis=1)
        out[:, ch] = x[:, ch] / (knorm + alpha / nsize * s) ** beta
    TORCH_CHECKS.append(("lrn", dict(x=x, nsize=nsize, alpha=alpha, beta=beta, knorm=knorm), out))
    return out


def batch_norm(x, gamma, beta, mean, var, eps=1e-3, fix_gamma=True, axis=1):
    """MXNet BatchNorm at inference: moving statistics; fix_gamma means gamma is taken as 1."""
    shp = [1] * x.ndim
    shp[axis % x.ndim] = x.shape[axis % x.ndim]
    g = np.ones_like(gamma) if fix_gamma else gamma
    out = ((x - mean.reshape(shp)) / np.sqrt(var.reshape(shp) + eps) * g.reshape(shp)
           + beta.reshape(shp))
    TORCH_CHECKS.append(("bn", dict(x=x, gamma=g, beta=beta, mean=mean, var=var, eps=eps,
                                    axis=axis % x.ndim), out))
    return out


def fully_connected(x, w, b, flatten=True):
    y = (x.reshape(x.shape[0], -1) if flatten else x) @ w.T
    return y if b is None else y + b


def erf(x):
    return np.vectorize(math.erf)(x)


def act(x, kind, slope=0.25, gamma=None):
    """Activation and LeakyReLU act_types."""
    if kind == "relu":
        out = np.maximum(x, 0)
    elif kind == "sigmoid":
        out = 1 / (1 + np.exp(-x))
    elif kind == "tanh":
        out = np.tanh(x)
    elif kind == "softrelu":
        out = np.log1p(np.exp(x))
    elif kind == "softsign":
        out = x / (1 + np.abs(x))
    elif kind == "leaky":
        out = np.where(x > 0, x, slope * x)
    elif kind == "elu":
        out = np.where(x > 0, x, slope * np.expm1(x))
    elif kind == "prelu":
        g = gamma.reshape((1, -1) + (1,) * (x.ndim - 2))
        out = np.where(x > 0, x, g * x)
    elif kind == "selu":
        out = 1.0507009873554805 * np.where(x > 0, x, 1.6732632423543772 * np.expm1(x))
    elif kind == "gelu":
        out = 0.5 * x * (1 + erf(x / math.sqrt(2)))
    else:
        raise ValueError(kind)
    TORCH_CHECKS.append(("act", dict(x=x, kind=kind, slope=slope, gamma=gamma), out))
    return out


def softmax(x, axis=-1, temperature=1.0):
    z = x / temperature
    e = np.exp(z - z.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def log_softmax(x, axis=-1, temperature=1.0):
    z = x / temperature
    z = z - z.max(axis=axis, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=axis, keepdims=True))


def reshape_target(dshape, spec):
    """MXNet Reshape's special codes 0, -1, -2, -3, -4 (reverse=False), as in matrix_op-inl.h."""
    out, src, infer, i = [], 0, -1, 0
    while i < len(spec):
        v = spec[i]
        if v == 0:
            out.append(dshape[src]); src += 1
        elif v == -1:
            infer = len(out); out.append(1); src += 1
        elif v == -2:
            out.extend(dshape[src:]); src = len(dshape)
        elif v == -3:
            out.append(dshape[src] * dshape[src + 1]); src += 2
        elif v == -4:
            d0, d1, d2 = dshape[src], spec[i + 1], spec[i + 2]
            src += 1; i += 2
            d1 = d0 // d2 if d1 == -1 else d1
            d2 = d0 // d1 if d2 == -1 else d2
            out += [d1, d2]
        else:
            out.append(v); src += 1
        i += 1
    if infer >= 0:
        out[infer] = int(np.prod(dshape)) // int(np.prod(out))
    return tuple(out)


def reduce_all_shape(x, keepdims):
    """MXNet 1.x (non-NumPy mode) reduces everything to shape (1,), or all-ones with keepdims."""
    return (1,) * x.ndim if keepdims else (1,)


# ----------------------------------------------------------------------------------------------
# PyTorch cross-check of the NumPy references (never a source of references)
# ----------------------------------------------------------------------------------------------

def cross_check_with_torch():
    try:
        import torch
        import torch.nn.functional as F
    except ImportError:
        print("note: torch not importable, skipped the cross-check of the NumPy references")
        return 0
    T = lambda a: None if a is None else torch.from_numpy(np.ascontiguousarray(a, np.float64))
    bad = 0
    counts = {}
    for kind, kw, ref in TORCH_CHECKS:
        x = T(kw["x"])
        if kind == "conv":
            fn = F.conv1d if x.dim() == 3 else F.conv2d
            got = fn(x, T(kw["w"]), T(kw["b"]), kw["stride"], kw["pad"], kw["dilate"],
                     kw["groups"])
        elif kind == "pool":
            k, s, p = kw["kernel"], kw["stride"], kw["pad"]
            ceil = kw["convention"] == "full"
            if kw["pool_type"] == "max":
                got = F.max_pool2d(x, k, s, p, ceil_mode=ceil)
            elif kw["pool_type"] == "avg":
                got = F.avg_pool2d(x, k, s, p, ceil_mode=ceil,
                                   count_include_pad=kw["count_include_pad"])
            else:
                got = F.avg_pool2d(x, k, s, p, ceil_mode=ceil, divisor_override=1)
        elif kind == "lrn":
            got = F.local_response_norm(x, kw["nsize"], kw["alpha"], kw["beta"], kw["knorm"])
        elif kind == "bn":
            ax = kw["axis"]
            xm = x.movedim(ax, 1)
            got = F.batch_norm(xm, T(kw["mean"]), T(kw["var"]), T(kw["gamma"]), T(kw["beta"]),
                               False, 0.0, kw["eps"]).movedim(1, ax)
        else:
            a = kw["kind"]
            got = {"relu": F.relu, "sigmoid": torch.sigmoid, "tanh": torch.tanh,
                   "softrelu": F.softplus, "softsign": F.softsign, "selu": F.selu,
                   "gelu": F.gelu,
                   "leaky": lambda v: F.leaky_relu(v, kw["slope"]),
                   "elu": lambda v: F.elu(v, kw["slope"]),
                   "prelu": lambda v: F.prelu(v, T(kw["gamma"]))}[a](x)
        counts[kind] = counts.get(kind, 0) + 1
        if got.shape != ref.shape or not np.allclose(got.numpy(), ref, rtol=1e-9, atol=1e-9):
            bad += 1
            print("torch disagrees: %s %s" % (kind, {k: v for k, v in kw.items()
                                                    if not isinstance(v, np.ndarray)}))
    print("cross-checked with torch %s: %s" % (torch.__version__,
          ", ".join("%s %d" % kv for kv in sorted(counts.items()))))
    return bad
