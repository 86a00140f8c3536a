# SPDX-License-Identifier: Apache-2.0
# Writes the hostile files of issue #27's acceptance 4 to DIR (for
# test/robustness/hostile-inputs.test): each claims far more than it holds or is
# malformed in a way that a reader trusting it would over-allocate, recurse
# until the stack ends, or read past the end of.
#   huge.params  an MXNet .params record of 2^40 float32 elements, 4 bytes
#   deep.json    a symbol JSON nested 100000 arrays deep
#   empty.*      0-byte .json, .params, .onnx and .npy files
#   short.onnx   an initializer of 2^20 x 4 floats holding 64 bytes
#   ext.onnx     an external-data initializer of 2^30 x 4 floats whose
#                ext.bin holds 128 bytes (and whose length claims 16 GiB)
#   nodata.onnx  an initializer of 2^40 x 4 floats holding no values
#   huge.onnx    an initializer of shape (2^62, 2^62, 4): the count overflows
#   abs.onnx, up.onnx  external data at /etc/hostname and ../secret.bin
#   neg.npy, ovf.npy  .npy headers of shape (-1, 4) and (2^62, 2^62)
import os
import struct
import sys

import onnx
from onnx import TensorProto, helper

out = sys.argv[1]


def write(name, data):
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)


# .params: list magic, reserved, one NDArray (v2 magic, dense, 1-D of 2^40
# elements, cpu 0, float32), then 4 bytes where 4 TiB should be; one name.
record = struct.pack("<IiI", 0xF993FAC9, 0, 1) + struct.pack("<q", 1 << 40)
record += struct.pack("<iii", 1, 0, 0) + b"\0" * 4
names = struct.pack("<Q", 1) + struct.pack("<Q", 5) + b"arg:w"
write("huge.params", struct.pack("<QQQ", 0x112, 0, 1) + record + names)

write("deep.json", b"[" * 100000 + b"]" * 100000)
for ext in ("json", "params", "onnx", "npy"):
    write("empty." + ext, b"")


def matmul_model(weight, n):
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"])], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, n])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])], [weight])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


short = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[1 << 20, 4],
                    raw_data=b"\0" * 64)
write("short.onnx", matmul_model(short, 1 << 20).SerializeToString())
external = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[1 << 30, 4],
                       data_location=TensorProto.EXTERNAL)
for key, value in (("location", "ext.bin"), ("offset", "0"), ("length", str(16 << 30))):
    entry = external.external_data.add()
    entry.key, entry.value = key, value
write("ext.bin", b"\0" * 128)
write("ext.onnx", matmul_model(external, 1 << 30).SerializeToString())


nodata = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[1 << 40, 4])
write("nodata.onnx", matmul_model(nodata, 1 << 40).SerializeToString())
huge = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[1 << 62, 1 << 62, 4])
write("huge.onnx", matmul_model(huge, 1 << 40).SerializeToString())
for name, location in (("abs.onnx", "/etc/hostname"), ("up.onnx", "../secret.bin")):
    outside = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[1, 4],
                          data_location=TensorProto.EXTERNAL)
    entry = outside.external_data.add()
    entry.key, entry.value = "location", location
    write(name, matmul_model(outside, 1).SerializeToString())


def npy(shape):
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': %s, }" % shape
    header = header.ljust(117) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + b"\0" * 16


write("neg.npy", npy("(-1, 4)"))
write("ovf.npy", npy("(%d, %d)" % (1 << 62, 1 << 62)))
