// SPDX-License-Identifier: Apache-2.0
// What the package's extensions share: their C++ errors raised in Python as
// mxc.Error, the one exception class (mxc._runtime's) a user catches.
#ifndef MXC_PYTHON_ERROR_H
#define MXC_PYTHON_ERROR_H

#include <pybind11/pybind11.h>

#include <exception>

/// Raises every `E` an extension's calls throw as mxc.Error with its
/// message (the class kept for the process's life).
template <typename E> void raiseAsMxcError() {
  static PyObject *error =
      pybind11::object(pybind11::module_::import("mxc._runtime").attr("Error"))
          .release()
          .ptr();
  pybind11::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p)
        std::rethrow_exception(p);
    } catch (const E &e) {
      PyErr_SetString(error, e.what());
    }
  });
}

#endif // MXC_PYTHON_ERROR_H
