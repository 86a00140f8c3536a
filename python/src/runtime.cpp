// SPDX-License-Identifier: Apache-2.0
// mxc._runtime: compiled models from Python through libmxrt alone (no LLVM):
// a Library opens lib<name>.so, describes its tensors and runs its functions
// on NumPy arrays, zero-copy where an array already has the layout, with the
// GIL released during the call.
#include "mxrt/model_abi.h"
#include "mxrt/mxrt.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace py = pybind11;

namespace {

/// mxc.Error: what the runtime said (mxrt_last_error).
struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void check(mxrt_status status) {
  if (status != MXRT_OK)
    throw Error(mxrt_last_error());
}

/// The NumPy dtype of an mxrt dtype, or none (strings, bfloat16).
std::optional<py::dtype> numpyDtype(mxrt_dtype dtype) {
  switch (dtype) {
  case MXRT_F32:
    return py::dtype::of<float>();
  case MXRT_F64:
    return py::dtype::of<double>();
  case MXRT_F16:
    return py::dtype("float16");
  case MXRT_U8:
    return py::dtype::of<uint8_t>();
  case MXRT_I8:
    return py::dtype::of<int8_t>();
  case MXRT_I16:
    return py::dtype::of<int16_t>();
  case MXRT_U16:
    return py::dtype::of<uint16_t>();
  case MXRT_I32:
    return py::dtype::of<int32_t>();
  case MXRT_U32:
    return py::dtype::of<uint32_t>();
  case MXRT_I64:
    return py::dtype::of<int64_t>();
  case MXRT_U64:
    return py::dtype::of<uint64_t>();
  case MXRT_BOOL:
    return py::dtype::of<bool>();
  default:
    return std::nullopt;
  }
}

/// The NumPy dtype of `what` ("input 'x' of ..."), whose dtype is `dtype`;
/// mxc.Error for one the package does not carry.
py::dtype carriedDtype(const std::string &what, mxrt_dtype dtype) {
  if (std::optional<py::dtype> d = numpyDtype(dtype))
    return *d;
  throw Error(what + " is " + mxrt_dtype_name(dtype) +
              ", which mxc's Python API does not carry yet");
}

struct TensorDeleter {
  void operator()(mxrt_tensor *t) const { mxrt_tensor_release(t); }
};
using TensorPtr = std::unique_ptr<mxrt_tensor, TensorDeleter>;

/// One tensor a function takes or gives: its name, dtype and shape, each
/// extent a number or the name of a dynamic dimension.
struct TensorInfo {
  std::string name;
  py::object dtype;
  py::tuple shape;
  /// Inputs of mxc --kv-cache=in-place: a key/value cache that a call
  /// appends to in place, or the caches' filled length.
  bool cache = false;
  bool length = false;

  std::string repr() const {
    std::string s = "TensorInfo(name='" + name +
                    "', dtype=" + py::str(dtype).cast<std::string>() +
                    ", shape=(";
    for (size_t i = 0; i < shape.size(); ++i)
      s += (i ? ", " : "") + py::repr(shape[i]).cast<std::string>();
    return s + (shape.size() == 1 ? ",))" : "))");
  }
};

/// A compiled model and the instances that run it: one per calling thread
/// for an inference library (they run concurrently), one in all for a
/// training library (its parameters live in the instance: calls from
/// several threads take turns).
class Library {
public:
  Library(const std::string &path, int threads) : threads(threads) {
    mxrt_model *raw = nullptr;
    check(mxrt_model_open(path.c_str(), &raw));
    model.reset(raw);
    int32_t n = mxrt_model_num_functions(model.get());
    for (int32_t f = 0; f < n; ++f)
      functionIndex[mxrt_model_function_name(model.get(), f)] = f;
    trainable = functionIndex.count("train_step") > 0;
  }

  std::string name() const { return mxrt_model_name(model.get()); }

  std::vector<std::string> functions() const {
    std::vector<std::string> names;
    for (int32_t f = 0; f < mxrt_model_num_functions(model.get()); ++f)
      names.push_back(mxrt_model_function_name(model.get(), f));
    return names;
  }

  std::vector<TensorInfo> inputs(const std::string &function) const {
    return describe(indexOf(function), true);
  }
  std::vector<TensorInfo> outputs(const std::string &function) const {
    return describe(indexOf(function), false);
  }

  std::vector<TensorInfo> params() const {
    std::vector<TensorInfo> all;
    for (int32_t p = 0; p < mxrt_model_num_params(model.get()); ++p) {
      mxrt_tensor_info info;
      check(mxrt_model_param_info(model.get(), p, &info));
      all.push_back(infoOf(info));
    }
    return all;
  }

  /// Runs `function` on `args` (in input order) and `kwargs` (by name);
  /// returns the outputs in order.
  std::vector<py::array> call(const std::string &function, py::args args,
                              py::kwargs kwargs) {
    int32_t f = indexOf(function);
    int32_t nIn = mxrt_model_function_num_inputs(model.get(), f),
            nOut = mxrt_model_function_num_outputs(model.get(), f);
    std::vector<py::object> given(nIn);
    if (int32_t(args.size()) > nIn)
      throw Error(where(f) + " takes " + std::to_string(nIn) + " inputs, got " +
                  std::to_string(args.size()));
    for (size_t i = 0; i < args.size(); ++i)
      given[i] = args[i];
    for (auto [key, value] : kwargs) {
      std::string name = py::str(key);
      int32_t i = inputIndex(f, name);
      if (given[i])
        throw Error(where(f) + ": input '" + name + "' is given twice");
      given[i] = py::reinterpret_borrow<py::object>(value);
    }
    // Inputs: each as an array of the input's dtype, C-contiguous (a view
    // of the caller's when it is one already), wrapped without a copy.
    std::vector<py::array> inArrays(nIn);
    std::vector<TensorPtr> inTensors(nIn);
    for (int32_t i = 0; i < nIn; ++i) {
      mxrt_tensor_info info;
      check(mxrt_model_function_input_info(model.get(), f, i, &info));
      if (!given[i])
        throw Error(where(f) + ": input '" + info.name + "' is missing");
      py::dtype dtype =
          carriedDtype(where(f) + ": input '" + info.name + "'", info.dtype);
      // A DLPack producer (a torch tensor, ...) is viewed without a copy.
      if (!py::isinstance<py::array>(given[i]) &&
          py::hasattr(given[i], "__dlpack__"))
        given[i] = py::module_::import("numpy").attr("from_dlpack")(given[i]);
      inArrays[i] = py::array::ensure(given[i], 0);
      bool asIs = inArrays[i] && inArrays[i].dtype().is(dtype) &&
                  (inArrays[i].flags() & py::array::c_style);
      // A cache is written in place: the caller's own array, never a copy.
      if (mxrt_model_function_input_flags(model.get(), f, i) &
              MXRT_TENSOR_CACHE &&
          !(asIs && inArrays[i].writeable()))
        throw Error(where(f) + ": input '" + info.name +
                    "' is a key/value cache that the call appends to in "
                    "place: pass a writable C-contiguous " +
                    std::string(py::str(dtype)) +
                    " array of its shape (numpy.zeros)");
      if (!asIs)
        inArrays[i] = py::array(py::module_::import("numpy").attr(
            "ascontiguousarray")(given[i], dtype));
      inTensors[i] = wrap(info.dtype, inArrays[i]);
    }
    // The outputs' shapes from the dimensions the inputs give.
    std::vector<int64_t> dims(std::max(mxrt_model_num_dims(model.get()), 1));
    std::vector<mxrt_tensor *> ins;
    for (TensorPtr &t : inTensors)
      ins.push_back(t.get());
    check(mxrt_model_bind_dims(model.get(), f, ins.data(), nIn, dims.data()));
    std::vector<py::array> outArrays;
    std::vector<TensorPtr> outTensors;
    for (int32_t o = 0; o < nOut; ++o) {
      mxrt_tensor_info info;
      check(mxrt_model_function_output_info(model.get(), f, o, &info));
      py::dtype dtype =
          carriedDtype(where(f) + ": output '" + info.name + "'", info.dtype);
      std::vector<int64_t> shape(info.ndim);
      mxrt_resolve_shape(&info, dims.data(), shape.data());
      outArrays.emplace_back(dtype, shape);
      outTensors.push_back(wrap(info.dtype, outArrays.back()));
    }
    std::vector<mxrt_tensor *> outs;
    for (TensorPtr &t : outTensors)
      outs.push_back(t.get());
    mxrt_status status;
    std::string message;
    {
      py::gil_scoped_release release;
      Slot &slot = instanceFor();
      std::unique_lock<std::mutex> turn(slot.lock);
      status = mxrt_instance_call(slot.instance.get(), f, ins.data(), nIn,
                                  outs.data(), nOut);
      if (status != MXRT_OK)
        message = mxrt_last_error();
    }
    if (status != MXRT_OK)
      throw Error(message);
    // Outputs with extents the call found (NonZero's, ...): their first
    // elements, as a view.
    for (int32_t o = 0; o < nOut; ++o) {
      const int64_t *shape = mxrt_tensor_shape(outs[o]);
      std::vector<int64_t> found(shape, shape + mxrt_tensor_ndim(outs[o]));
      if (std::equal(found.begin(), found.end(), outArrays[o].shape()))
        continue;
      py::array flat = outArrays[o].attr("reshape")(-1);
      outArrays[o] =
          flat[py::slice(0, mxrt_tensor_num_elements(outs[o]), 1)].attr(
              "reshape")(found);
    }
    return outArrays;
  }

  py::array getParam(const std::string &name) {
    int32_t p;
    check(mxrt_model_find_param(model.get(), name.c_str(), &p));
    mxrt_tensor_info info;
    check(mxrt_model_param_info(model.get(), p, &info));
    py::dtype dtype = carriedDtype("parameter '" + name + "'", info.dtype);
    py::array out(dtype,
                  std::vector<int64_t>(info.shape, info.shape + info.ndim));
    Slot &slot = instanceFor();
    std::unique_lock<std::mutex> turn(slot.lock);
    check(mxrt_instance_read_param(slot.instance.get(), name.c_str(),
                                   out.mutable_data(), out.nbytes()));
    return out;
  }

  void setParam(const std::string &name, py::object value) {
    int32_t p;
    check(mxrt_model_find_param(model.get(), name.c_str(), &p));
    mxrt_tensor_info info;
    check(mxrt_model_param_info(model.get(), p, &info));
    py::dtype dtype = carriedDtype("parameter '" + name + "'", info.dtype);
    py::array a =
        py::module_::import("numpy").attr("ascontiguousarray")(value, dtype);
    std::vector<int64_t> want(info.shape, info.shape + info.ndim),
        got(a.shape(), a.shape() + a.ndim());
    if (want != got)
      throw Error("parameter '" + name + "' has shape " + shapeText(want) +
                  ", got an array of shape " + shapeText(got));
    Slot &slot = instanceFor();
    std::unique_lock<std::mutex> turn(slot.lock);
    check(mxrt_instance_write_param(slot.instance.get(), name.c_str(), a.data(),
                                    a.nbytes()));
  }

  void saveParams(const std::string &path) {
    Slot &slot = instanceFor();
    std::unique_lock<std::mutex> turn(slot.lock);
    check(mxrt_instance_save_params(slot.instance.get(), path.c_str()));
  }

  void loadParams(const std::string &path) {
    Slot &slot = instanceFor();
    std::unique_lock<std::mutex> turn(slot.lock);
    check(mxrt_instance_load_params(slot.instance.get(), path.c_str()));
  }

  bool isTrainable() const { return trainable; }
  int numThreads() const { return threads; }

private:
  struct ModelDeleter {
    void operator()(mxrt_model *m) const { mxrt_model_release(m); }
  };
  struct InstanceDeleter {
    void operator()(mxrt_instance *i) const { mxrt_instance_release(i); }
  };
  /// An instance and the lock a call holds on it.
  struct Slot {
    std::unique_ptr<mxrt_instance, InstanceDeleter> instance;
    std::mutex lock;
  };

  std::unique_ptr<mxrt_model, ModelDeleter> model;
  int threads;
  bool trainable = false;
  std::map<std::string, int32_t> functionIndex;
  std::mutex slotsLock;
  std::map<std::thread::id, std::unique_ptr<Slot>> slots;

  static std::string shapeText(const std::vector<int64_t> &shape) {
    std::string s = "(";
    for (size_t i = 0; i < shape.size(); ++i)
      s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + (shape.size() == 1 ? ",)" : ")");
  }

  std::string where(int32_t f) const {
    return "function '" +
           std::string(mxrt_model_function_name(model.get(), f)) +
           "' of model '" + name() + "'";
  }

  int32_t indexOf(const std::string &function) const {
    auto it = functionIndex.find(function);
    if (it == functionIndex.end()) {
      std::string known;
      for (const auto &[name, index] : functionIndex)
        known += (known.empty() ? "" : ", ") + name;
      throw Error("model '" + name() + "' has no function '" + function +
                  "' (it has " + known + ")");
    }
    return it->second;
  }

  int32_t inputIndex(int32_t f, const std::string &name) const {
    int32_t n = mxrt_model_function_num_inputs(model.get(), f);
    std::string known;
    for (int32_t i = 0; i < n; ++i) {
      mxrt_tensor_info info;
      check(mxrt_model_function_input_info(model.get(), f, i, &info));
      if (name == info.name)
        return i;
      known += (i ? ", " : "") + std::string(info.name);
    }
    throw Error(where(f) + " has no input '" + name +
                "' (its inputs: " + known + ")");
  }

  TensorInfo infoOf(const mxrt_tensor_info &info) const {
    TensorInfo t;
    t.name = info.name;
    std::optional<py::dtype> dtype = numpyDtype(info.dtype);
    t.dtype = dtype ? py::object(*dtype) : py::str(mxrt_dtype_name(info.dtype));
    py::list shape;
    for (int32_t d = 0; d < info.ndim; ++d) {
      int64_t extent = info.shape[d];
      if (extent >= 0) {
        shape.append(extent);
        continue;
      }
      mxrt_dim_info dim;
      check(mxrt_model_dim_info(model.get(), int32_t(-1 - extent), &dim));
      shape.append(py::str(dim.name));
    }
    t.shape = py::tuple(shape);
    return t;
  }

  std::vector<TensorInfo> describe(int32_t f, bool inputs) const {
    std::vector<TensorInfo> all;
    int32_t n = inputs ? mxrt_model_function_num_inputs(model.get(), f)
                       : mxrt_model_function_num_outputs(model.get(), f);
    for (int32_t i = 0; i < n; ++i) {
      mxrt_tensor_info info;
      check(inputs ? mxrt_model_function_input_info(model.get(), f, i, &info)
                   : mxrt_model_function_output_info(model.get(), f, i, &info));
      all.push_back(infoOf(info));
      int64_t flags =
          inputs ? mxrt_model_function_input_flags(model.get(), f, i) : 0;
      all.back().cache = flags & MXRT_TENSOR_CACHE;
      all.back().length = flags & MXRT_TENSOR_LENGTH;
    }
    return all;
  }

  static TensorPtr wrap(mxrt_dtype dtype, py::array &array) {
    std::vector<int64_t> shape(array.shape(), array.shape() + array.ndim());
    mxrt_tensor *raw = nullptr;
    // Inputs may be read-only views (DLPack's); only outputs are written.
    check(mxrt_tensor_wrap(
        dtype, int32_t(shape.size()), shape.data(),
        array.size() ? const_cast<void *>(array.data()) : nullptr, &raw));
    return TensorPtr(raw);
  }

  /// The calling thread's instance (the one instance of a training
  /// library), created on first use.
  Slot &instanceFor() {
    std::thread::id id =
        trainable ? std::thread::id() : std::this_thread::get_id();
    std::lock_guard<std::mutex> guard(slotsLock);
    std::unique_ptr<Slot> &slot = slots[id];
    if (!slot) {
      auto fresh = std::make_unique<Slot>();
      mxrt_instance_options options;
      mxrt_instance_options_init(&options);
      options.num_threads = threads;
      mxrt_instance *raw = nullptr;
      check(mxrt_instance_create(model.get(), &options, &raw));
      fresh->instance.reset(raw);
      slot = std::move(fresh);
    }
    return *slot;
  }
};

} // namespace

PYBIND11_MODULE(_runtime, m) {
  m.doc() = "libmxrt from Python: compiled mxc models on NumPy arrays";
  static py::exception<Error> error(m, "Error");
  error.attr("__module__") = "mxc";
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p)
        std::rethrow_exception(p);
    } catch (const Error &e) {
      error(e.what());
    }
  });

  py::class_<TensorInfo>(m, "TensorInfo",
                         "A tensor a function takes or gives: name, NumPy "
                         "dtype, shape (a dynamic extent by its dimension's "
                         "name).")
      .def_readonly("name", &TensorInfo::name)
      .def_readonly("dtype", &TensorInfo::dtype)
      .def_readonly("shape", &TensorInfo::shape)
      .def_readonly("cache", &TensorInfo::cache,
                    "A key/value cache that a call reads and appends to in "
                    "place (mxc --kv-cache=in-place)")
      .def_readonly("length", &TensorInfo::length,
                    "The caches' filled length, an int64 scalar")
      .def("__repr__", &TensorInfo::repr);

  py::class_<Library>(m, "Library", py::dynamic_attr(),
                      R"doc(A compiled model (lib<name>.so).

lib(x, ...) or lib(data=x) runs its forward function and returns its output
(a tuple when it has several); lib.call("train_step", ...) runs another
function of a training library and returns its outputs as a tuple.)doc")
      .def(py::init<const std::string &, int>(), py::arg("path"),
           py::arg("threads") = 1)
      .def_property_readonly("name", &Library::name)
      .def_property_readonly("functions", &Library::functions)
      .def_property_readonly(
          "inputs", [](const Library &l) { return l.inputs("forward"); })
      .def_property_readonly(
          "outputs", [](const Library &l) { return l.outputs("forward"); })
      .def("function_inputs", &Library::inputs, py::arg("function"))
      .def("function_outputs", &Library::outputs, py::arg("function"))
      .def_property_readonly("params", &Library::params)
      .def_property_readonly("trainable", &Library::isTrainable)
      .def_property_readonly("threads", &Library::numThreads)
      .def("__call__",
           [](Library &l, py::args args, py::kwargs kwargs) -> py::object {
             std::vector<py::array> outs = l.call("forward", args, kwargs);
             if (outs.size() == 1)
               return outs[0];
             return py::tuple(py::cast(outs));
           })
      .def(
          "call",
          [](Library &l, const std::string &function, py::args args,
             py::kwargs kwargs) {
            return py::tuple(py::cast(l.call(function, args, kwargs)));
          },
          py::arg("function"))
      .def("get_param", &Library::getParam, py::arg("name"))
      .def("set_param", &Library::setParam, py::arg("name"), py::arg("value"))
      .def("save_params", &Library::saveParams, py::arg("path"))
      .def("load_params", &Library::loadParams, py::arg("path"))
      .def("__repr__",
           [](const Library &l) { return "<mxc.Library '" + l.name() + "'>"; });

  m.def(
      "load",
      [](py::object path, std::optional<int> threads) {
        return std::make_unique<Library>(
            py::module_::import("os").attr("fspath")(path).cast<std::string>(),
            threads.value_or(1));
      },
      py::arg("path"), py::arg("threads") = py::none(),
      "Opens a compiled library (lib<name>.so).");
}
