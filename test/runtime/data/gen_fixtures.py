# SPDX-License-Identifier: Apache-2.0
# Writes the .npy fixtures in this folder with real NumPy, so that the
# runtime's reader and writer are checked against NumPy itself. NpyTest.cpp
# spells out the same values. Regenerate with:
#   /usr/bin/python3 test/runtime/data/gen_fixtures.py   (NumPy 1.24)
import os

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))


def save(name, array):
    np.save(os.path.join(here, name), array)


def write(name, array, version):
    with open(os.path.join(here, name), "wb") as f:
        np.lib.format.write_array(f, array, version=version)


# Written by np.save (format 1.0): libmxrt must write these byte for byte.
save("f32_2x3.npy", np.array([[-1.0, -0.5, 0.0], [0.5, 1.0, 1.5]], "<f4"))
save("f64_scalar.npy", np.array(3.25, "<f8"))
save("f16_3.npy", np.array([1.0, -2.5, 65504.0], "<f2"))
# bfloat16 (which NumPy lacks) as mxrt writes it: the raw bits of 1.0, -2.5
# and NaN in a structured array of one uint16 field named "bfloat16".
save("bf16_3.npy", np.array([0x3F80, 0xC020, 0x7FC0], "<u2").view([("bfloat16", "<u2")]))
save("u8_4.npy", np.array([0, 1, 254, 255], "|u1"))
save("i8_4.npy", np.array([-128, -1, 0, 127], "|i1"))
save("i32_2x2.npy", np.array([[1, -2], [2147483647, -2147483648]], "<i4"))
save("i64_3.npy", np.array([1, -1, 2**40], "<i8"))
save("bool_5.npy", np.array([True, False, True, True, False]))
save("f32_2x0x3.npy", np.zeros((2, 0, 3), "<f4"))
save("i32_1x1x1x1x1x1x1x2.npy", np.array([7, -7], "<i4").reshape((1,) * 7 + (2,)))
# Text: UTF-32 code units, each element padded with NULs to the longest.
save("str_2x2.npy", np.array([["a", "h\u00e9llo"], ["", "\u65e5\u672c"]]))
# Byte strings ('|S'): read as they are.
save("bytes_3.npy", np.array([b"ab", b"", b"xyz"]))

# Other header versions.
write("f32_3_v2.npy", np.array([1.5, 2.5, -3.5], "<f4"), (2, 0))
write("i64_2_v3.npy", np.array([-5, 5], "<i8"), (3, 0))

# Valid NumPy files libmxrt must refuse with a clear error.
save("f32_fortran.npy", np.asfortranarray(np.arange(6, dtype="<f4").reshape(2, 3)))
save("f32_bigendian.npy", np.array([1.0, 2.0], ">f4"))
save("c64_2.npy", np.array([1 + 2j, 3 - 4j], "<c8"))
save("u2x2_struct.npy", np.zeros(2, [("a", "<u2"), ("b", "<u2")]))
