// SPDX-License-Identifier: Apache-2.0
// mxc._kvstore: libmxrt_kvstore's KVStore in Python (local, and dist_sync /
// dist_async across processes under mpirun) on NumPy float32 arrays. Each
// call returns when its operations have run (the GIL released meanwhile),
// so the arrays it reads and writes are the caller's again.
#include "mxrt/kvstore.h"
#include "mxrt/mxrt.h"

#include "error.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <string>
#include <vector>

namespace py = pybind11;

namespace {

using FloatArray =
    py::array_t<float, py::array::c_style | py::array::forcecast>;

/// mxc.Error: what the store said.
struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void check(mxrt_status status) {
  if (status != MXRT_OK)
    throw Error(mxrt_last_error());
}

struct TensorDeleter {
  void operator()(mxrt_tensor *t) const { mxrt_tensor_release(t); }
};
using TensorPtr = std::unique_ptr<mxrt_tensor, TensorDeleter>;

TensorPtr wrap(py::array &a) {
  std::vector<int64_t> shape(a.shape(), a.shape() + a.ndim());
  mxrt_tensor *raw = nullptr;
  check(mxrt_tensor_wrap(MXRT_F32, int32_t(shape.size()), shape.data(),
                         a.size() ? a.mutable_data() : nullptr, &raw));
  return TensorPtr(raw);
}

/// `value` (an array or a list of arrays, one per device) as float32 arrays.
std::vector<py::array> arrays(py::handle value) {
  std::vector<py::array> out;
  if (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value)) {
    for (py::handle item : value)
      out.push_back(FloatArray::ensure(item));
  } else {
    out.push_back(FloatArray::ensure(value));
  }
  for (const py::array &a : out)
    if (!a)
      throw Error("KVStore: expected arrays of numbers");
  return out;
}

/// Tensors over `arrays` (which must outlive them), released together.
struct Wrapped {
  explicit Wrapped(std::vector<py::array> &arrays) {
    for (py::array &a : arrays) {
      owners.push_back(wrap(a));
      tensors.push_back(owners.back().get());
    }
  }
  std::vector<TensorPtr> owners;
  std::vector<mxrt_tensor *> tensors;
};

class KVStore {
public:
  KVStore(const std::string &type, int threads) {
    mxrt_kvstore *raw = nullptr;
    check(mxrt_kvstore_create(type.c_str(), threads, &raw));
    store.reset(raw);
  }

  std::string type() const { return mxrt_kvstore_type(store.get()); }
  int rank() const { return mxrt_kvstore_rank(store.get()); }
  int numWorkers() const { return mxrt_kvstore_num_workers(store.get()); }

  void init(int key, py::handle value) {
    py::array a = arrays(value).at(0);
    TensorPtr t = wrap(a);
    py::gil_scoped_release release;
    check(mxrt_kvstore_init(store.get(), key, t.get()));
  }

  void push(int key, py::handle values, int priority) {
    std::vector<py::array> in = arrays(values);
    Wrapped held(in);
    std::vector<mxrt_tensor *> &ts = held.tensors;
    py::gil_scoped_release release;
    check(mxrt_kvstore_push(store.get(), key, ts.data(), ts.size(), priority));
    check(mxrt_kvstore_wait_all(store.get()));
  }

  /// The key's value into `out` (an array of its shape), or into a new
  /// array of `shape`.
  py::array pull(int key, py::object out, py::object shape, int priority) {
    py::array target;
    if (!out.is_none()) {
      target = py::array::ensure(out, py::array::c_style);
      if (!target || !target.dtype().is(py::dtype::of<float>()) ||
          !target.writeable())
        throw Error("KVStore.pull: out must be a writable "
                    "C-contiguous float32 array");
    } else if (!shape.is_none()) {
      target = FloatArray(shape.cast<std::vector<int64_t>>());
    } else {
      throw Error("KVStore.pull: give out= or shape=");
    }
    TensorPtr t = wrap(target);
    mxrt_tensor *ts[] = {t.get()};
    {
      py::gil_scoped_release release;
      check(mxrt_kvstore_pull(store.get(), key, ts, 1, priority));
      check(mxrt_kvstore_wait_all(store.get()));
    }
    return target;
  }

  /// Pushes `values` and returns the key's merged value (a new array).
  py::array pushpull(int key, py::handle values, int priority) {
    std::vector<py::array> in = arrays(values);
    Wrapped held(in);
    std::vector<mxrt_tensor *> &ts = held.tensors;
    py::array out = FloatArray(
        std::vector<int64_t>(in[0].shape(), in[0].shape() + in[0].ndim()));
    TensorPtr o = wrap(out);
    mxrt_tensor *outs[] = {o.get()};
    py::gil_scoped_release release;
    check(mxrt_kvstore_pushpull(store.get(), key, ts.data(), ts.size(), outs, 1,
                                priority));
    check(mxrt_kvstore_wait_all(store.get()));
    return out;
  }

  void setOptimizer(const std::string &name, py::kwargs options) {
    mxrt_optimizer_options o;
    mxrt_optimizer_options_init(&o);
    for (auto [key, value] : options) {
      std::string k = py::str(key);
      float v = value.cast<float>();
      if (k == "learning_rate")
        o.learning_rate = v;
      else if (k == "wd" || k == "weight_decay")
        o.weight_decay = v;
      else if (k == "momentum")
        o.momentum = v;
      else if (k == "beta1")
        o.beta1 = v;
      else if (k == "beta2")
        o.beta2 = v;
      else if (k == "epsilon")
        o.epsilon = v;
      else if (k == "rho")
        o.rho = v;
      else if (k == "rescale_grad")
        o.rescale_grad = v;
      else if (k == "clip_gradient")
        o.clip_gradient = v;
      else
        throw Error("KVStore.set_optimizer: unknown option '" + k + "'");
    }
    check(mxrt_kvstore_set_optimizer(store.get(), name.c_str(), &o));
  }

  void barrier() {
    py::gil_scoped_release release;
    check(mxrt_kvstore_barrier(store.get()));
  }
  void save(const std::string &path) {
    py::gil_scoped_release release;
    check(mxrt_kvstore_save(store.get(), path.c_str()));
  }
  void load(const std::string &path) {
    py::gil_scoped_release release;
    check(mxrt_kvstore_load(store.get(), path.c_str()));
  }

private:
  struct Deleter {
    void operator()(mxrt_kvstore *s) const { mxrt_kvstore_release(s); }
  };
  std::unique_ptr<mxrt_kvstore, Deleter> store;
};

} // namespace

PYBIND11_MODULE(_kvstore, m) {
  m.doc() = "libmxrt_kvstore's KVStore on NumPy arrays";
  raiseAsMxcError<Error>();
  py::class_<KVStore>(m, "KVStore", R"doc(A key-value store of float32
arrays for data-parallel training: "local", or "dist_sync" / "dist_async"
across the processes of an mpirun job. push adds values (one per device) to
a key, applying the optimizer set with set_optimizer; pull copies the value
out. Each call returns when its operations have run.)doc")
      .def(py::init<const std::string &, int>(), py::arg("type") = "local",
           py::arg("threads") = 0)
      .def_property_readonly("type", &KVStore::type)
      .def_property_readonly("rank", &KVStore::rank)
      .def_property_readonly("num_workers", &KVStore::numWorkers)
      .def("init", &KVStore::init, py::arg("key"), py::arg("value"))
      .def("push", &KVStore::push, py::arg("key"), py::arg("values"),
           py::arg("priority") = 0)
      .def("pull", &KVStore::pull, py::arg("key"), py::arg("out") = py::none(),
           py::arg("shape") = py::none(), py::arg("priority") = 0)
      .def("pushpull", &KVStore::pushpull, py::arg("key"), py::arg("values"),
           py::arg("priority") = 0)
      .def("set_optimizer", &KVStore::setOptimizer, py::arg("name"))
      .def("barrier", &KVStore::barrier)
      .def("save", &KVStore::save, py::arg("path"))
      .def("load", &KVStore::load, py::arg("path"));
}
