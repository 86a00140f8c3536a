// SPDX-License-Identifier: Apache-2.0
//
// mx::NDArray: a float32 tensor on the CPU for the C++ host API, a thin
// owner of an mxrt_tensor (header-only on libmxrt's C API, so an app that
// uses it links libmxrt alone, never LLVM). Copies share the buffer, as
// MXNet's do; Copy() makes a new one.
//
// Operations are asynchronous, as MXNet's: each is pushed to libmxrt's
// dependency engine (mxrt/engine.h) with the arrays it reads and writes,
// and returns at once; the engine runs operations on different arrays in
// parallel and keeps those on one array in the order they were made. Reading
// values (data(), ToVector(), Save) waits for the writes pending on the
// array; writing through data() or tensor() also waits for pending reads.
// WaitToRead, WaitToWrite and WaitAll wait explicitly and throw the error of
// an operation that failed (it also fails the operations that read its
// output). NDArray::Push runs an app's own operation the same way.

#ifndef MXC_NDARRAY_H
#define MXC_NDARRAY_H

#include "mxc/base.h"
#include "mxrt/mxrt.h"

#include "mxrt/engine.h"
#include <algorithm>
#include <atomic>
#include <cstring>

#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace mx {

class NDArray;

namespace detail {

/// The dependency engine NDArray operations run on: one per process (in
/// every library that uses arrays: MXC_SHARED), with a thread per core and
/// at least two (so that independent operations overlap), never released
/// (operations may still run at exit).
MXC_SHARED inline mxrt_engine *ndEngine() {
  static mxrt_engine *engine = [] {
    mxrt_engine *e = nullptr;
    unsigned threads = std::max(2u, std::thread::hardware_concurrency());
    if (mxrt_engine_create(int32_t(threads), &e) != MXRT_OK)
      throw Error(std::string("NDArray: the engine: ") + mxrt_last_error());
    return e;
  }();
  return engine;
}

/// One buffer and the engine variable that orders the operations on it.
/// Operations hold it until they have run, so a buffer outlives the last
/// array over it while operations on it are pending.
struct Chunk {
  mxrt_tensor *tensor;
  std::shared_ptr<const void> owner; // keeps a view's memory alive
  mxrt_var *var = nullptr;
  /// Writes pushed, and times handed out for writing (NDArray::Version).
  std::atomic<uint64_t> version{0};

  Chunk(mxrt_tensor *tensor, std::shared_ptr<const void> owner)
      : tensor(tensor), owner(std::move(owner)) {
    if (mxrt_engine_new_var(ndEngine(), &var) != MXRT_OK) {
      mxrt_tensor_release(tensor);
      throw Error(std::string("NDArray: ") + mxrt_last_error());
    }
  }
  ~Chunk() {
    mxrt_engine_delete_var(ndEngine(), var);
    mxrt_tensor_release(tensor);
  }
  Chunk(const Chunk &) = delete;
  Chunk &operator=(const Chunk &) = delete;
  float *data() const { return static_cast<float *>(mxrt_tensor_data(tensor)); }
};

/// A pushed operation: its body and the buffers it keeps alive.
struct PushedOp {
  std::function<void()> body;
  std::vector<std::shared_ptr<Chunk>> keep;

  static mxrt_status run(void *arg) {
    try {
      static_cast<PushedOp *>(arg)->body();
      return MXRT_OK;
    } catch (const std::exception &e) {
      return mxrt_set_error(MXRT_INVALID_ARGUMENT, "%s", e.what());
    } catch (...) {
      return mxrt_set_error(MXRT_INTERNAL, "an NDArray operation threw");
    }
  }
  static void release(void *arg) { delete static_cast<PushedOp *>(arg); }
};

/// Pushes `body` reading `reads` and writing `writes` (buffers, may be
/// null for an empty array; each write counts in NDArray::Version).
inline void push(const std::string &name, std::function<void()> body,
                 const std::vector<std::shared_ptr<Chunk>> &reads,
                 const std::vector<std::shared_ptr<Chunk>> &writes) {
  auto *op = new PushedOp{std::move(body), {}};
  std::vector<mxrt_var *> r, w;
  for (const auto &c : reads)
    if (c)
      r.push_back(c->var), op->keep.push_back(c);
  for (const auto &c : writes)
    if (c) {
      w.push_back(c->var), op->keep.push_back(c);
      ++c->version;
    }
  if (mxrt_engine_push(ndEngine(), &PushedOp::run, op, &PushedOp::release,
                       r.data(), r.size(), w.data(), w.size(), 0,
                       name.c_str()) != MXRT_OK) {
    delete op;
    throw Error("NDArray " + name + ": " + mxrt_last_error());
  }
}

} // namespace detail

/// `s * a` before it is used: `w -= lr * g` applies it in one pass;
/// anywhere an NDArray is wanted it becomes a new array.
struct ScaledNDArray {
  float scale;
  const NDArray &array;
  operator NDArray() const;
};

class NDArray {
public:
  /// No array (size 0, no shape).
  NDArray() = default;
  /// Zeros of `shape`.
  explicit NDArray(const Shape &shape) : NDArray(shape, Uninitialized{}) {
    std::fill_n(chunk_->data(), size(), 0.0f);
  }
  NDArray(const Shape &shape, const std::vector<float> &values)
      : NDArray(shape, Uninitialized{}) {
    if (values.size() != size())
      throw Error("NDArray: " + std::to_string(values.size()) +
                  " values for shape " + shapeText(shape));
    std::copy(values.begin(), values.end(), chunk_->data());
  }
  /// A copy of a float32 mxrt tensor's values.
  static NDArray FromTensor(const mxrt_tensor *t) {
    if (mxrt_tensor_dtype(t) != MXRT_F32)
      throw Error("NDArray: the tensor is not float32");
    const int64_t *dims = mxrt_tensor_shape(t);
    NDArray a(Shape(dims, dims + mxrt_tensor_ndim(t)), Uninitialized{});
    std::memcpy(a.chunk_->data(),
                mxrt_tensor_data(const_cast<mxrt_tensor *>(t)),
                a.size() * sizeof(float));
    return a;
  }

  static NDArray Zeros(const Shape &shape) { return NDArray(shape); }
  static NDArray Full(const Shape &shape, float value) {
    NDArray a(shape, Uninitialized{});
    std::fill_n(a.chunk_->data(), a.size(), value);
    return a;
  }
  static NDArray Ones(const Shape &shape) { return Full(shape, 1.0f); }
  /// Uniform in [low, high), from a seeded generator.
  static NDArray Uniform(const Shape &shape, float low, float high,
                         uint64_t seed) {
    std::uniform_real_distribution<float> dist(low, high);
    return Drawn(shape, dist, seed);
  }
  static NDArray Normal(const Shape &shape, float mean, float stddev,
                        uint64_t seed) {
    std::normal_distribution<float> dist(mean, stddev);
    return Drawn(shape, dist, seed);
  }

  bool empty() const { return !chunk_; }
  Shape shape() const {
    if (!chunk_)
      return {};
    const int64_t *dims = mxrt_tensor_shape(chunk_->tensor);
    return Shape(dims, dims + mxrt_tensor_ndim(chunk_->tensor));
  }
  size_t size() const {
    return chunk_ ? size_t(mxrt_tensor_num_elements(chunk_->tensor)) : 0;
  }
  /// The values, once the operations pending on the array are done (for
  /// writing: its pending reads too).
  float *data() {
    WaitToWrite();
    if (chunk_)
      ++chunk_->version;
    return GetData();
  }
  const float *data() const {
    WaitToRead();
    return GetData();
  }
  std::vector<float> ToVector() const {
    const float *values = data();
    return std::vector<float>(values, values + size());
  }
  /// The buffer without waiting: for the body of an operation pushed with
  /// NDArray::Push, which the engine runs when the buffer is ready.
  float *GetData() const { return chunk_ ? chunk_->data() : nullptr; }
  /// GetData's tensor: libmxrt's C API's view of the buffer, not waiting.
  mxrt_tensor *GetTensor() const { return chunk_ ? chunk_->tensor : nullptr; }
  /// The array as libmxrt's C API takes it (owned by the array), ready to
  /// be read or written.
  mxrt_tensor *tensor() const {
    WaitToWrite();
    if (!chunk_)
      return nullptr;
    ++chunk_->version;
    return chunk_->tensor;
  }
  /// Counts the writes made to the buffer (operations pushed that write
  /// it, and data() / tensor() handing it out for writing): equal counts
  /// mean unchanged values, as MXNet's NDArray::version.
  uint64_t Version() const { return chunk_ ? chunk_->version.load() : 0; }
  /// An array over `tensor` (a float32 mxrt tensor, which it releases);
  /// `owner` is kept alive as long as the array, for a view into memory
  /// that another object owns (mx::Executor::Param).
  static NDArray Adopt(mxrt_tensor *tensor,
                       std::shared_ptr<const void> owner = nullptr) {
    if (mxrt_tensor_dtype(tensor) != MXRT_F32) {
      mxrt_tensor_release(tensor);
      throw Error("NDArray: the tensor is not float32");
    }
    NDArray a;
    a.chunk_ = std::make_shared<detail::Chunk>(tensor, std::move(owner));
    return a;
  }

  /// A new buffer with the same values.
  NDArray Copy() const {
    NDArray a(shape(), Uninitialized{});
    a.CopyFrom(*this);
    return a;
  }
  /// Copies `other`'s values into this array (same shape).
  void CopyFrom(const NDArray &other) {
    sameShape(other, "CopyFrom");
    float *x = GetData();
    const float *y = other.GetData();
    size_t n = size();
    detail::push("CopyFrom", [=] { std::copy_n(y, n, x); }, {other.chunk_},
                 {chunk_});
  }

  /// Blocks until the operations writing this array are done; throws the
  /// error of one that failed.
  void WaitToRead() const {
    if (chunk_)
      check(mxrt_engine_wait_for_var(detail::ndEngine(), chunk_->var),
            "NDArray");
  }
  /// Blocks until every operation on this array, reading or writing it, is
  /// done.
  void WaitToWrite() const { WaitToWrite({*this}); }
  /// WaitToWrite for several arrays at once (one barrier for all).
  static void WaitToWrite(const std::vector<NDArray> &arrays) {
    std::vector<mxrt_var *> vars;
    for (const NDArray &a : arrays)
      if (a.chunk_)
        vars.push_back(a.chunk_->var);
    // (Arrays with nothing pending return at once: no engine hand-off.)
    check(
        mxrt_engine_wait_to_write(detail::ndEngine(), vars.data(), vars.size()),
        "NDArray");
  }
  /// Blocks until every NDArray operation made so far is done; throws the
  /// first error since the last WaitAll.
  static void WaitAll() {
    check(mxrt_engine_wait_all(detail::ndEngine()), "NDArray");
  }
  /// Runs `body` on the engine after the operations before it that write
  /// `reads`, or read or write `writes`, as MXNet's Engine::PushSync: an
  /// app's own operation, ordered with the built-in ones. The body reads
  /// and writes through GetData(); what it throws becomes the error of the
  /// arrays it writes. `name` appears in that error's message.
  static void Push(const std::string &name, std::function<void()> body,
                   const std::vector<NDArray> &reads,
                   const std::vector<NDArray> &writes) {
    std::vector<std::shared_ptr<detail::Chunk>> r, w;
    for (const NDArray &a : reads)
      r.push_back(a.chunk_);
    for (const NDArray &a : writes)
      w.push_back(a.chunk_);
    detail::push(name, std::move(body), r, w);
  }

  NDArray &operator+=(const NDArray &b) {
    return apply(b, "+=", std::plus<float>());
  }
  NDArray &operator-=(const NDArray &b) {
    return apply(b, "-=", std::minus<float>());
  }
  NDArray &operator*=(const NDArray &b) {
    return apply(b, "*=", std::multiplies<float>());
  }
  NDArray &operator/=(const NDArray &b) {
    return apply(b, "/=", std::divides<float>());
  }
  /// w -= lr * g and w += a * g in one pass over w and g (no temporary).
  NDArray &operator+=(const ScaledNDArray &b);
  NDArray &operator-=(const ScaledNDArray &b);
  NDArray &operator+=(float s) { return scale(1.0f, s, "+="); }
  NDArray &operator-=(float s) { return scale(1.0f, -s, "-="); }
  NDArray &operator*=(float s) { return scale(s, 0.0f, "*="); }
  NDArray &operator/=(float s) { return scale(1.0f / s, 0.0f, "/="); }

  /// MXNet's .params format (names as given: "arg:fc1_weight" ...), once
  /// the arrays' pending writes are done.
  static void Save(const std::string &path,
                   const std::map<std::string, NDArray> &arrays) {
    std::vector<const char *> names;
    std::vector<const mxrt_tensor *> tensors;
    for (const auto &[name, a] : arrays) {
      a.WaitToRead();
      names.push_back(name.c_str());
      tensors.push_back(a.chunk_ ? a.chunk_->tensor : nullptr);
    }
    check(mxrt_params_save(path.c_str(), names.size(), names.data(),
                           tensors.data()),
          "NDArray::Save");
  }
  static std::map<std::string, NDArray> Load(const std::string &path) {
    mxrt_params *params = nullptr;
    check(mxrt_params_load(path.c_str(), &params), "NDArray::Load");
    std::unique_ptr<mxrt_params, void (*)(mxrt_params *)> owner(
        params, mxrt_params_release);
    std::map<std::string, NDArray> arrays;
    for (size_t i = 0; i < mxrt_params_count(params); ++i)
      arrays[mxrt_params_name(params, i)] =
          FromTensor(mxrt_params_tensor(params, i));
    return arrays;
  }

  static std::string shapeText(const Shape &shape) {
    std::string text = "(";
    for (size_t i = 0; i < shape.size(); ++i)
      text += (i ? ", " : "") + std::to_string(shape[i]);
    return text + ")";
  }

private:
  friend NDArray &addScaled(NDArray &, const ScaledNDArray &);
  struct Uninitialized {};
  /// A new buffer of `shape` whose values the caller writes (before anyone
  /// else can see the array).
  NDArray(const Shape &shape, Uninitialized) {
    mxrt_tensor *t = nullptr;
    check(mxrt_tensor_create(MXRT_F32, static_cast<int32_t>(shape.size()),
                             shape.data(), &t),
          "NDArray");
    chunk_ = std::make_shared<detail::Chunk>(t, nullptr);
  }
  template <typename Distribution>
  static NDArray Drawn(const Shape &shape, Distribution &dist, uint64_t seed) {
    std::mt19937_64 rng(seed);
    NDArray a(shape, Uninitialized{});
    std::generate_n(a.chunk_->data(), a.size(), [&] { return dist(rng); });
    return a;
  }
  static void check(mxrt_status status, const char *what) {
    if (status != MXRT_OK)
      throw Error(std::string(what) + ": " + mxrt_last_error());
  }
  void sameShape(const NDArray &b, const char *what) const {
    if (shape() != b.shape())
      throw Error(std::string("NDArray ") + what + ": shapes " +
                  shapeText(shape()) + " and " + shapeText(b.shape()) +
                  " differ");
  }
  template <typename Op>
  NDArray &apply(const NDArray &b, const char *what, Op op) {
    sameShape(b, what);
    float *x = GetData();
    const float *y = b.GetData();
    size_t n = size();
    detail::push(what,
                 [=] {
                   for (size_t i = 0; i < n; ++i)
                     x[i] = op(x[i], y[i]);
                 },
                 {b.chunk_}, {chunk_});
    return *this;
  }
  NDArray &scale(float a, float b, const char *what) {
    float *x = GetData();
    size_t n = size();
    detail::push(what,
                 [=] {
                   for (size_t i = 0; i < n; ++i)
                     x[i] = a * x[i] + b;
                 },
                 {}, {chunk_});
    return *this;
  }

  std::shared_ptr<detail::Chunk> chunk_;
};

inline NDArray operator+(const NDArray &a, const NDArray &b) {
  NDArray c = a.Copy();
  return c += b;
}
inline NDArray operator-(const NDArray &a, const NDArray &b) {
  NDArray c = a.Copy();
  return c -= b;
}
inline NDArray operator*(const NDArray &a, const NDArray &b) {
  NDArray c = a.Copy();
  return c *= b;
}
inline NDArray operator/(const NDArray &a, const NDArray &b) {
  NDArray c = a.Copy();
  return c /= b;
}
inline ScaledNDArray operator*(float s, const NDArray &a) { return {s, a}; }
inline ScaledNDArray operator*(const NDArray &a, float s) { return {s, a}; }

inline ScaledNDArray::operator NDArray() const {
  NDArray c = array.Copy();
  return c *= scale;
}

inline NDArray &addScaled(NDArray &w, const ScaledNDArray &b) {
  w.sameShape(b.array, "+=");
  float *x = w.GetData();
  const float *y = b.array.GetData();
  const float s = b.scale;
  size_t n = w.size();
  detail::push("+= scaled",
               [=] {
                 for (size_t i = 0; i < n; ++i)
                   x[i] += s * y[i];
               },
               {b.array.chunk_}, {w.chunk_});
  return w;
}

inline NDArray &NDArray::operator+=(const ScaledNDArray &b) {
  return addScaled(*this, b);
}

inline NDArray &NDArray::operator-=(const ScaledNDArray &b) {
  return addScaled(*this, ScaledNDArray{-b.scale, b.array});
}

} // namespace mx

#endif // MXC_NDARRAY_H
