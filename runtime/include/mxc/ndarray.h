// SPDX-License-Identifier: Apache-2.0
//
// mx::NDArray: a float32 tensor on the CPU for the C++ host API, a thin
// owner of an mxrt_tensor (header-only on libmxrt's C API, so an app that
// uses it links libmxrt alone, never LLVM). Copies share the buffer, as
// MXNet's do; Copy() makes a new one. Operations run synchronously today
// (WaitToRead and WaitAll return at once); running them on the dependency
// engine is issue #24's next step.

#ifndef MXC_NDARRAY_H
#define MXC_NDARRAY_H

#include "mxc/base.h"
#include "mxrt/mxrt.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace mx {

class NDArray;

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
  explicit NDArray(const Shape &shape) {
    mxrt_tensor *t = nullptr;
    check(mxrt_tensor_create(MXRT_F32, static_cast<int32_t>(shape.size()),
                             shape.data(), &t),
          "NDArray");
    tensor_.reset(t, mxrt_tensor_release);
    std::fill_n(data(), size(), 0.0f);
  }
  NDArray(const Shape &shape, const std::vector<float> &values)
      : NDArray(shape) {
    if (values.size() != size())
      throw Error("NDArray: " + std::to_string(values.size()) +
                  " values for shape " + shapeText(shape));
    std::copy(values.begin(), values.end(), data());
  }
  /// A copy of a float32 mxrt tensor's values.
  static NDArray FromTensor(const mxrt_tensor *t) {
    if (mxrt_tensor_dtype(t) != MXRT_F32)
      throw Error("NDArray: the tensor is not float32");
    const int64_t *dims = mxrt_tensor_shape(t);
    NDArray a(Shape(dims, dims + mxrt_tensor_ndim(t)));
    std::memcpy(a.data(), mxrt_tensor_data(const_cast<mxrt_tensor *>(t)),
                a.size() * sizeof(float));
    return a;
  }

  static NDArray Zeros(const Shape &shape) { return NDArray(shape); }
  static NDArray Full(const Shape &shape, float value) {
    NDArray a(shape);
    std::fill_n(a.data(), a.size(), value);
    return a;
  }
  static NDArray Ones(const Shape &shape) { return Full(shape, 1.0f); }
  /// Uniform in [low, high), from a seeded generator.
  static NDArray Uniform(const Shape &shape, float low, float high,
                         uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<float> dist(low, high);
    NDArray a(shape);
    std::generate_n(a.data(), a.size(), [&] { return dist(rng); });
    return a;
  }
  static NDArray Normal(const Shape &shape, float mean, float stddev,
                        uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<float> dist(mean, stddev);
    NDArray a(shape);
    std::generate_n(a.data(), a.size(), [&] { return dist(rng); });
    return a;
  }

  bool empty() const { return !tensor_; }
  Shape shape() const {
    if (!tensor_)
      return {};
    const int64_t *dims = mxrt_tensor_shape(tensor_.get());
    return Shape(dims, dims + mxrt_tensor_ndim(tensor_.get()));
  }
  size_t size() const {
    return tensor_ ? size_t(mxrt_tensor_num_elements(tensor_.get())) : 0;
  }
  float *data() {
    return tensor_ ? static_cast<float *>(mxrt_tensor_data(tensor_.get()))
                   : nullptr;
  }
  const float *data() const {
    return tensor_ ? static_cast<float *>(mxrt_tensor_data(tensor_.get()))
                   : nullptr;
  }
  std::vector<float> ToVector() const {
    return std::vector<float>(data(), data() + size());
  }
  /// The array as libmxrt's C API takes it (owned by the array).
  mxrt_tensor *tensor() const { return tensor_.get(); }
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
    a.tensor_.reset(tensor,
                    [owner](mxrt_tensor *t) { mxrt_tensor_release(t); });
    return a;
  }

  /// A new buffer with the same values.
  NDArray Copy() const {
    NDArray a(shape());
    std::copy_n(data(), size(), a.data());
    return a;
  }
  /// Copies `other`'s values into this array (same shape).
  void CopyFrom(const NDArray &other) {
    sameShape(other, "CopyFrom");
    std::copy_n(other.data(), size(), data());
  }

  /// Operations finish before they return today; kept for MXNet's API.
  void WaitToRead() const {}
  static void WaitAll() {}

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
  NDArray &operator+=(float s) { return scale(1.0f, s); }
  NDArray &operator-=(float s) { return scale(1.0f, -s); }
  NDArray &operator*=(float s) { return scale(s, 0.0f); }
  NDArray &operator/=(float s) { return scale(1.0f / s, 0.0f); }

  /// MXNet's .params format (names as given: "arg:fc1_weight" ...).
  static void Save(const std::string &path,
                   const std::map<std::string, NDArray> &arrays) {
    std::vector<const char *> names;
    std::vector<const mxrt_tensor *> tensors;
    for (const auto &[name, a] : arrays) {
      names.push_back(name.c_str());
      tensors.push_back(a.tensor());
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
    float *x = data();
    const float *y = b.data();
    for (size_t i = 0, n = size(); i < n; ++i)
      x[i] = op(x[i], y[i]);
    return *this;
  }
  NDArray &scale(float a, float b) {
    float *x = data();
    for (size_t i = 0, n = size(); i < n; ++i)
      x[i] = a * x[i] + b;
    return *this;
  }

  std::shared_ptr<mxrt_tensor> tensor_;
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

inline NDArray &NDArray::operator+=(const ScaledNDArray &b) {
  sameShape(b.array, "+=");
  float *x = data();
  const float *y = b.array.data();
  const float s = b.scale;
  for (size_t i = 0, n = size(); i < n; ++i)
    x[i] += s * y[i];
  return *this;
}

inline NDArray &NDArray::operator-=(const ScaledNDArray &b) {
  return *this += ScaledNDArray{-b.scale, b.array};
}

} // namespace mx

#endif // MXC_NDARRAY_H
