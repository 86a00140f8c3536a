// SPDX-License-Identifier: Apache-2.0
//
// The values of a model's dynamic dimensions in one call of a function:
// bound from its tensors' shapes (or taken from the caller, for the raw
// calls) within their bounds, and for a function with `shapes` completed by
// its derived dimensions (model_abi.h). Shared by model.cpp's two call paths
// and mxrt_model_bind_dims, so that all three check the same way. Not
// installed.
#ifndef MXRT_SRC_DIMS_H
#define MXRT_SRC_DIMS_H

#include "internal.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace mxrt {

/// Whether `tensor` has `desc`'s rank and static extents (a dynamic extent
/// takes any: DimBinding::bind checks it).
bool fitsShape(const mxrt_tensor_desc &desc, const mxrt_tensor *tensor);

/// Fails for `tensor` (an input or output, `kind`), whose dtype or shape is
/// not `desc`'s (its dynamic extents shown by their names in `dims`, the
/// model's).
mxrt_status failShape(const char *kind, const mxrt_tensor_desc &desc,
                      const mxrt_tensor *tensor, const mxrt_dim_desc *dims);

/// The first model dimension that an input of `fn` has (its batch dimension,
/// for a function with variants), else an output (not a counted one), or -1
/// when its shapes are static: a raw call without the dimensions' values
/// cannot run a function that has one, nor its caller size the buffers.
int64_t firstDim(const mxrt_model_desc &model, const mxrt_function_desc &fn);

/// The values of the model's dimensions in one call of `fn`: -1 until bound.
/// Holds them on the stack for up to 16 dimensions, so that a call
/// allocates nothing.
class DimBinding {
public:
  DimBinding(const mxrt_model_desc &model, const mxrt_function_desc &fn);
  DimBinding(const DimBinding &) = delete;
  DimBinding &operator=(const DimBinding &) = delete;

  /// Binds the dimensions that the dynamic extents of `tensor` name (an
  /// input or output, `kind`, that fits `desc`): the first tensor that has a
  /// dimension binds it, within its bounds, and the others must agree, with
  /// the derived values too. Errors name the tensor, the axis, the dimension
  /// and the values.
  mxrt_status bind(const char *kind, const mxrt_tensor_desc &desc,
                   const mxrt_tensor *tensor);

  /// Takes the values of the dimensions that fn's inputs have from `dims`
  /// (the model's num_dims of them, given to a raw call `what`), each within
  /// its bounds; the others, derived ones included, stay unbound.
  mxrt_status take(const int64_t *dims, const char *what);

  /// Sets the counted dimensions to their bounds (the outputs are sized for
  /// them), then, for a function with `shapes`, once every dimension its
  /// inputs have is bound: computes the derived ones and the scratch the
  /// call needs. Fails
  /// when one of those its outputs have comes out below 0 (inputs too small
  /// for the model), or when the shapes function changed a dimension that is
  /// not derived or asked for less than no scratch.
  mxrt_status derive();

  /// Counted dimension `index` is `extent`, as the call found it: within
  /// its bound.
  mxrt_status setCounted(int64_t index, int64_t extent);

  /// The model's num_dims values, -1 where unbound.
  const int64_t *values() const { return value.get(); }
  /// The extent of fn's batch dimension (-1: it has none, or it is unbound).
  int64_t batch() const {
    return fn.num_variants ? value.get()[fn.batch_dim] : -1;
  }
  /// Bytes of scratch a call of a function with `shapes` needs once derived
  /// (its scratch_size before).
  int64_t scratch() const { return scratchBytes; }
  /// "H = 1, W = 5": the values of the dimensions bound that are not derived,
  /// for messages.
  std::string describe();

private:
  /// `count` elements, in the object itself when they are few.
  template <typename T> class Array {
  public:
    explicit Array(size_t count)
        : data(count <= kInline ? local
                                : (heap.reset(new T[count]), heap.get())) {}
    T *get() const { return data; }
    T &operator[](int64_t i) { return data[i]; }

  private:
    static constexpr size_t kInline = 16;
    T local[kInline];
    std::unique_ptr<T[]> heap;
    T *data;
  };

  bool derived(int64_t index) const {
    return model.dims[index].flags & MXRT_DIM_DERIVED;
  }
  bool counted(int64_t index) const {
    return model.dims[index].flags & MXRT_DIM_COUNTED;
  }

  const mxrt_model_desc &model;
  const mxrt_function_desc &fn;
  Array<int64_t> value;
  /// Per dimension, the input that bound it (NULL: derived, or unbound).
  Array<const char *> from;
  int64_t scratchBytes;
};

} // namespace mxrt

#endif // MXRT_SRC_DIMS_H
