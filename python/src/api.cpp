// SPDX-License-Identifier: Apache-2.0
// mxc._api: the C++ host API in Python: symbol JSON through the compiler's
// reader and shape inference (mxc.sym builds the graphs), mx::NDArray
// (mxc.nd: float32 arrays on libmxrt's dependency engine) and mx::Executor
// (a symbol compiled in-process for training). Links the compiler.
#include "mxc/executor.h"
#include "mxc/ndarray.h"
#include "mxc/symbol.h"

#include "error.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace py = pybind11;

namespace {

using mx::NDArray;
using mx::Shape;

py::tuple shapeTuple(const Shape &shape) {
  py::list l;
  for (int64_t d : shape)
    l.append(d);
  return py::tuple(l);
}

/// A float32 copy of `value` (an NDArray, anything NumPy converts) as an
/// NDArray.
NDArray toNDArray(py::handle value) {
  if (py::isinstance<NDArray>(value))
    return value.cast<NDArray>();
  py::array_t<float, py::array::c_style | py::array::forcecast> a =
      py::array_t<float, py::array::c_style | py::array::forcecast>::ensure(
          value);
  if (!a)
    throw mx::Error("expected an NDArray or an array of numbers");
  Shape shape(a.shape(), a.shape() + a.ndim());
  NDArray out(shape);
  std::memcpy(out.data(), a.data(), a.size() * sizeof(float));
  return out;
}

/// The NDArray's values as a new NumPy array (after the operations pending
/// on it).
py::array toNumpy(const NDArray &a) {
  a.WaitToRead();
  Shape shape = a.shape();
  py::array_t<float> out(std::vector<int64_t>(shape.begin(), shape.end()));
  std::memcpy(out.mutable_data(), a.data(), a.size() * sizeof(float));
  return out;
}

/// lr * g before it meets `-=` (mx::ScaledNDArray), so that
/// `w -= lr * g` is one fused update as in C++.
struct Scaled {
  float scale;
  NDArray array;
};

NDArray scaledValue(const Scaled &s) {
  return mx::ScaledNDArray{s.scale, s.array};
}

std::map<std::string, Shape>
shapesOf(const std::map<std::string, std::vector<int64_t>> &shapes) {
  std::map<std::string, Shape> out;
  for (const auto &[name, shape] : shapes)
    out[name] = Shape(shape.begin(), shape.end());
  return out;
}

} // namespace

PYBIND11_MODULE(_api, m) {
  m.doc() = "mxc's C++ host API (Symbol JSON, NDArray, Executor) in Python";
  raiseAsMxcError<mx::Error>();

  // Symbols: mxc.sym builds the JSON; these read it as the compiler does.
  m.def("canonical_json", [](const std::string &json) {
    return mx::Symbol::FromJSON(json).ToJSON();
  });
  m.def("list_arguments", [](const std::string &json) {
    return mx::Symbol::FromJSON(json).ListArguments();
  });
  m.def("list_outputs", [](const std::string &json) {
    return mx::Symbol::FromJSON(json).ListOutputs();
  });
  m.def("list_auxiliary_states", [](const std::string &json) {
    return mx::Symbol::FromJSON(json).ListAuxiliaryStates();
  });
  m.def("infer_shape",
        [](const std::string &json,
           const std::map<std::string, std::vector<int64_t>> &known) {
          mx::InferredShapes s =
              mx::Symbol::FromJSON(json).InferShape(shapesOf(known));
          auto list = [](const std::vector<Shape> &shapes) {
            py::list l;
            for (const Shape &shape : shapes)
              l.append(shapeTuple(shape));
            return l;
          };
          return py::make_tuple(list(s.arguments), list(s.outputs),
                                list(s.auxiliaryStates));
        });

  py::class_<Scaled>(m, "ScaledNDArray",
                     "scale * array, waiting for `-=` / `+=` (one update)")
      .def("__array__",
           [](const Scaled &s) { return toNumpy(scaledValue(s)); });

  py::class_<NDArray>(m, "NDArray", R"doc(A float32 array on libmxrt's
dependency engine: operations return at once and run when their inputs are
ready; asnumpy() waits for them.)doc")
      .def(py::init([](py::handle value) { return toNDArray(value); }),
           py::arg("value"))
      .def_property_readonly(
          "shape", [](const NDArray &a) { return shapeTuple(a.shape()); })
      .def_property_readonly("size", &NDArray::size)
      .def("asnumpy", &toNumpy)
      .def("__array__", [](const NDArray &a, py::args) { return toNumpy(a); })
      .def("copy", &NDArray::Copy)
      .def("wait_to_read", &NDArray::WaitToRead,
           py::call_guard<py::gil_scoped_release>())
      .def("__setitem__",
           [](NDArray &a, py::slice all, py::handle value) {
             size_t start, stop, step, length;
             if (!all.compute(1, &start, &stop, &step, &length) || start != 0 ||
                 step != 1)
               throw mx::Error("NDArray: only a[:] = value is supported");
             if (py::isinstance<py::float_>(value) ||
                 py::isinstance<py::int_>(value)) {
               a *= 0.0f;
               a += value.cast<float>();
               return;
             }
             NDArray v = toNDArray(value);
             if (v.shape() != a.shape())
               throw mx::Error("NDArray: cannot assign an array of another "
                               "shape");
             a.CopyFrom(v);
           })
      .def("__add__", [](const NDArray &a, const NDArray &b) { return a + b; })
      .def("__sub__", [](const NDArray &a, const NDArray &b) { return a - b; })
      .def("__mul__", [](const NDArray &a, const NDArray &b) { return a * b; })
      .def("__truediv__",
           [](const NDArray &a, const NDArray &b) { return a / b; })
      .def("__mul__",
           [](const NDArray &a, float s) {
             return Scaled{s, a};
           })
      .def("__rmul__",
           [](const NDArray &a, float s) {
             return Scaled{s, a};
           })
      .def("__iadd__",
           [](NDArray &a, const NDArray &b) -> NDArray & { return a += b; })
      .def("__isub__",
           [](NDArray &a, const NDArray &b) -> NDArray & { return a -= b; })
      .def("__imul__",
           [](NDArray &a, const NDArray &b) -> NDArray & { return a *= b; })
      .def("__itruediv__",
           [](NDArray &a, const NDArray &b) -> NDArray & { return a /= b; })
      .def("__iadd__",
           [](NDArray &a, const Scaled &b) -> NDArray & {
             return a += mx::ScaledNDArray{b.scale, b.array};
           })
      .def("__isub__",
           [](NDArray &a, const Scaled &b) -> NDArray & {
             return a -= mx::ScaledNDArray{b.scale, b.array};
           })
      .def("__iadd__", [](NDArray &a, float s) -> NDArray & { return a += s; })
      .def("__isub__", [](NDArray &a, float s) -> NDArray & { return a -= s; })
      .def("__imul__", [](NDArray &a, float s) -> NDArray & { return a *= s; })
      .def("__itruediv__",
           [](NDArray &a, float s) -> NDArray & { return a /= s; })
      .def("__repr__", [](const NDArray &a) {
        std::string s = "<NDArray (";
        Shape shape = a.shape();
        for (size_t i = 0; i < shape.size(); ++i)
          s += (i ? ", " : "") + std::to_string(shape[i]);
        return s + (shape.size() == 1 ? ",)>" : ")>");
      });
  m.def("zeros", [](const std::vector<int64_t> &shape) {
    return NDArray::Zeros(Shape(shape.begin(), shape.end()));
  });
  m.def("full", [](const std::vector<int64_t> &shape, float value) {
    return NDArray::Full(Shape(shape.begin(), shape.end()), value);
  });
  m.def("waitall", &NDArray::WaitAll, py::call_guard<py::gil_scoped_release>());

  py::class_<mx::Executor>(m, "Executor", R"doc(A symbol compiled in-process
for given input shapes into a training library: forward, backward (the
gradients), outputs, gradients and parameters as NDArrays.)doc")
      .def(
          py::init([](const std::string &json,
                      const std::map<std::string, std::vector<int64_t>> &inputs,
                      int threads, uint64_t seed, const std::string &params,
                      const std::string &loss, const std::string &cacheDir) {
            mx::ExecutorOptions options;
            options.threads = threads;
            options.seed = seed;
            options.params = params;
            options.loss = loss;
            options.cacheDir = cacheDir;
            py::gil_scoped_release release;
            return mx::Executor(mx::Symbol::FromJSON(json), shapesOf(inputs),
                                options);
          }),
          py::arg("json"), py::arg("inputs"), py::arg("threads") = 1,
          py::arg("seed") = 0, py::arg("params") = "", py::arg("loss") = "",
          py::arg("cache_dir") = "")
      .def_property_readonly("input_names", &mx::Executor::InputNames)
      .def_property_readonly("output_names", &mx::Executor::OutputNames)
      .def_property_readonly("param_names", &mx::Executor::ParamNames)
      .def("input", &mx::Executor::Input,
           py::return_value_policy::reference_internal)
      .def("set_input",
           [](mx::Executor &e, const std::string &name, py::handle value) {
             e.SetInput(name, toNDArray(value));
           })
      .def("forward", &mx::Executor::Forward,
           py::call_guard<py::gil_scoped_release>())
      .def("backward", &mx::Executor::Backward,
           py::call_guard<py::gil_scoped_release>())
      .def_property_readonly("outputs", &mx::Executor::Outputs)
      .def("gradient", &mx::Executor::Gradient)
      .def("param", &mx::Executor::Param)
      .def("set_param",
           [](mx::Executor &e, const std::string &name, py::handle value) {
             e.SetParam(name, toNDArray(value));
           })
      .def("save_params", &mx::Executor::SaveParams)
      .def("reshape",
           [](const mx::Executor &e,
              const std::map<std::string, std::vector<int64_t>> &inputs) {
             py::gil_scoped_release release;
             return e.Reshape(shapesOf(inputs));
           })
      .def_property_readonly("cached", &mx::Executor::cached);
}
