/* SPDX-License-Identifier: Apache-2.0
 *
 * libmxrt's public C API: tensors, loading compiled models, and running them.
 * Everything a program needs to run a model compiled by mxc; no LLVM or MLIR.
 *
 * Conventions (they hold for every function below):
 *  - Fallible calls return mxrt_status; MXRT_OK (0) is success. On failure a
 *    message naming the offending argument is kept per thread and returned by
 *    mxrt_last_error().
 *  - Results are written through out_ pointers, and only on success.
 *  - Objects returned by *_create / *_open / *_load are owned by the caller and
 *    must be freed with the matching *_release, which accepts NULL.
 *  - No function aborts, exits or throws.
 */
#ifndef MXRT_MXRT_H
#define MXRT_MXRT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define MXRT_API __attribute__((visibility("default")))
#else
#define MXRT_API
#endif

/*===------------------------------------------------------------------===*
 * Status
 *===------------------------------------------------------------------===*/

typedef enum mxrt_status {
  MXRT_OK = 0,
  MXRT_INVALID_ARGUMENT = 1, /* null pointer, wrong shape/dtype, bad name */
  MXRT_NOT_FOUND = 2,        /* missing file, symbol, input or output */
  MXRT_IO_ERROR = 3,         /* unreadable or corrupt file */
  MXRT_OUT_OF_MEMORY = 4,
  MXRT_UNSUPPORTED = 5, /* e.g. an ABI version this runtime does not know */
  MXRT_INTERNAL = 6,
} mxrt_status;

/** Static name of a status code, e.g. "INVALID_ARGUMENT". */
MXRT_API const char *mxrt_status_string(mxrt_status status);

/** Message of the last failing call on this thread ("" if none). The string
 *  is owned by the runtime and valid until the next failing call on this
 *  thread. */
MXRT_API const char *mxrt_last_error(void);

/*===------------------------------------------------------------------===*
 * Element types (codes match MXNet's dtype flags)
 *===------------------------------------------------------------------===*/

typedef enum mxrt_dtype {
  MXRT_F32 = 0,
  MXRT_F64 = 1,
  MXRT_F16 = 2,
  MXRT_U8 = 3,
  MXRT_I32 = 4,
  MXRT_I8 = 5,
  MXRT_I64 = 6,
  MXRT_BOOL = 7,
  MXRT_I16 = 8,
  MXRT_U16 = 9,
  MXRT_U32 = 10,
  MXRT_U64 = 11,
  MXRT_BF16 = 12, /* bfloat16: the upper half of a float32's bits */
  /** Text: each element is a `const char *` to NUL-terminated UTF-8 (NULL
   *  reads as ""); see mxrt_tensor_set_string. Not an MXNet flag (ONNX's
   *  STRING). */
  MXRT_STRING = 13,
} mxrt_dtype;

/** Bytes per element, or 0 for an unknown code. */
MXRT_API size_t mxrt_dtype_size(mxrt_dtype dtype);
/** Static name such as "float32", or "unknown". */
MXRT_API const char *mxrt_dtype_name(mxrt_dtype dtype);

#define MXRT_MAX_DIMS 8

/*===------------------------------------------------------------------===*
 * Tensors: a dense, row-major, 64-byte aligned array of one dtype.
 *===------------------------------------------------------------------===*/

typedef struct mxrt_tensor mxrt_tensor;

/** New zero-filled tensor; owned by the caller. */
MXRT_API mxrt_status mxrt_tensor_create(mxrt_dtype dtype, int32_t ndim,
                                        const int64_t *shape,
                                        mxrt_tensor **out_tensor);
/** Tensor viewing caller memory `data`; the caller keeps owning `data` and
 *  must keep it alive until the tensor is released. `data` must be aligned to
 *  the element size (64 bytes is better for kernels) and may be NULL only for
 *  a tensor with no elements. */
MXRT_API mxrt_status mxrt_tensor_wrap(mxrt_dtype dtype, int32_t ndim,
                                      const int64_t *shape, void *data,
                                      mxrt_tensor **out_tensor);
/** Frees the tensor (and its data unless wrapped). Accepts NULL. */
MXRT_API void mxrt_tensor_release(mxrt_tensor *tensor);

/* Accessors; on a NULL tensor they return 0, NULL or MXRT_F32. */
MXRT_API mxrt_dtype mxrt_tensor_dtype(const mxrt_tensor *tensor);
MXRT_API int32_t mxrt_tensor_ndim(const mxrt_tensor *tensor);
/** Pointer to ndim extents, owned by the tensor. */
MXRT_API const int64_t *mxrt_tensor_shape(const mxrt_tensor *tensor);
MXRT_API int64_t mxrt_tensor_num_elements(const mxrt_tensor *tensor);
MXRT_API size_t mxrt_tensor_size_bytes(const mxrt_tensor *tensor);
/** The tensor's data; owned by the tensor (or its wrapper's caller). */
MXRT_API void *mxrt_tensor_data(mxrt_tensor *tensor);

/** String tensors (MXRT_STRING): the data is an array of `const char *`.
 *  A created tensor's elements read as "" until set. mxrt_tensor_set_string
 *  stores a copy of `value` (UTF-8, NUL-terminated) owned by the tensor, in
 *  created and wrapped tensors alike, and points element `index` (row-major)
 *  at it. */
MXRT_API mxrt_status mxrt_tensor_set_string(mxrt_tensor *tensor, int64_t index,
                                            const char *value);
/** Element `index` of a string tensor ("" for NULL), or NULL when the tensor
 *  is not a string tensor or the index is out of range. */
MXRT_API const char *mxrt_tensor_get_string(const mxrt_tensor *tensor,
                                            int64_t index);

/** Reads a NumPy .npy file (v1-v3, little-endian, C order) into a new tensor
 *  owned by the caller. NumPy has no bfloat16: a bfloat16 tensor is the
 *  structured type [('bfloat16', '<u2')], one field holding the raw bits
 *  (np.load gives a["bfloat16"] as uint16). Text arrays (NumPy's '<U' and
 *  '|S' dtypes) become string tensors. */
MXRT_API mxrt_status mxrt_tensor_load_npy(const char *path,
                                          mxrt_tensor **out_tensor);
/** Writes the tensor as a NumPy .npy file (v1; bfloat16 as above; strings as
 *  '<U' with the longest element's length). The file
 *  is complete or absent: a failed write removes it. */
MXRT_API mxrt_status mxrt_tensor_save_npy(const mxrt_tensor *tensor,
                                          const char *path);

/*===------------------------------------------------------------------===*
 * Models: compiled code + weights, immutable and shareable between threads.
 *===------------------------------------------------------------------===*/

typedef struct mxrt_model mxrt_model;
struct mxrt_model_desc; /* see mxrt/model_abi.h */

/** Information about one input or output; strings and shape are owned by the
 *  model and valid until it is released. */
typedef struct mxrt_tensor_info {
  const char *name;
  mxrt_dtype dtype;
  int32_t ndim;
  const int64_t *shape;
} mxrt_tensor_info;

/** Loads a compiled model library (lib<name>.so) by path; owned by the
 *  caller. A bare file name means a file in the current directory, not a
 *  search of the library path. */
MXRT_API mxrt_status mxrt_model_open(const char *path, mxrt_model **out_model);
/** Wraps a model linked into the program (its <name>_descriptor); owned by
 *  the caller. */
MXRT_API mxrt_status mxrt_model_from_descriptor(
    const struct mxrt_model_desc *desc, mxrt_model **out_model);
/** Frees the model. Its instances must be released first. Accepts NULL. */
MXRT_API void mxrt_model_release(mxrt_model *model);

/** The model's name (static string owned by the model). */
MXRT_API const char *mxrt_model_name(const mxrt_model *model);
MXRT_API int32_t mxrt_model_num_inputs(const mxrt_model *model);
MXRT_API int32_t mxrt_model_num_outputs(const mxrt_model *model);
MXRT_API mxrt_status mxrt_model_input_info(const mxrt_model *model,
                                           int32_t index,
                                           mxrt_tensor_info *out_info);
MXRT_API mxrt_status mxrt_model_output_info(const mxrt_model *model,
                                            int32_t index,
                                            mxrt_tensor_info *out_info);
/** Index of the input called `name`, or MXRT_NOT_FOUND. */
MXRT_API mxrt_status mxrt_model_find_input(const mxrt_model *model,
                                           const char *name,
                                           int32_t *out_index);

/*===------------------------------------------------------------------===*
 * Dynamic dimensions (mxc --input data=Nx3x224x224, ONNX dim_params): an
 * extent below 0 in an mxrt_tensor_info shape is dynamic dimension
 * MXRT_DIM_INDEX(extent) (mxrt/model_abi.h), whose value each call takes
 * from its inputs, or, for a derived dimension (an output's extent, such as
 * a convolution's output height), computes from the others.
 *===------------------------------------------------------------------===*/

/** A dynamic dimension; its name is owned by the model. */
typedef struct mxrt_dim_info {
  const char *name;
  int64_t min; /* smallest extent a call may give it (at least 0) */
  int64_t max; /* largest, or -1 when unbounded */
  /** 1 for a derived dimension: computed from the others, an output's
   *  extent; never bound by the caller (no input has it, and the values
   *  given to mxrt_instance_run_raw_dims for it are ignored); min and max
   *  are then 0 and -1. 0 for the others. */
  int32_t derived;
  /** 1 for a counted dimension (derived too): an extent only the call finds
   *  (the elements NonZero keeps, the boxes NonMaxSuppression selects), at
   *  most max. mxrt_model_bind_dims gives max, the extent to size the
   *  outputs for; the call then sets the shapes of the output tensors that
   *  have it to its value (their elements are the first ones of their
   *  buffers), and mxrt_instance_last_dims gives it. 0 for the others. */
  int32_t counted;
} mxrt_dim_info;

/** How many dynamic dimensions the model has (0: every shape is static). */
MXRT_API int32_t mxrt_model_num_dims(const mxrt_model *model);
MXRT_API mxrt_status mxrt_model_dim_info(const mxrt_model *model, int32_t index,
                                         mxrt_dim_info *out_info);
/** The values of the model's dynamic dimensions that the shapes of
 *  `inputs` (function `function`'s, in its order) give, written to
 *  `out_dims` (mxrt_model_num_dims values), the derived ones included:
 *  with them, mxrt_resolve_shape gives the outputs' shapes. Fails, naming
 *  the input, the axis, the dimension and both values, when an input's rank
 *  or a static extent differs from the model's, two inputs disagree on a
 *  dimension, or a value is outside the dimension's bounds, and, naming the
 *  output, when a derived value comes out below 0 (inputs too small for the
 *  model). A NULL input is skipped (an app that generates some inputs
 *  learns their extents from the others'): a dimension that no input given
 *  has, or that the function does not use, comes out as -1, and so do the
 *  derived ones until every dimension the inputs have is bound. */
MXRT_API mxrt_status mxrt_model_bind_dims(const mxrt_model *model,
                                          int32_t function,
                                          mxrt_tensor *const *inputs,
                                          int32_t num_inputs,
                                          int64_t *out_dims);
/** `info`'s shape with every dynamic dimension replaced by its value in
 *  `dims` (info->ndim extents to `out_shape`; with `dims` NULL, the shape
 *  as it is). */
MXRT_API void mxrt_resolve_shape(const mxrt_tensor_info *info,
                                 const int64_t *dims, int64_t *out_shape);

/*===------------------------------------------------------------------===*
 * Instances: per-caller state of a model (scratch memory, parameters).
 * One thread may use an instance at a time; separate instances of one model
 * run concurrently.
 *===------------------------------------------------------------------===*/

typedef struct mxrt_instance mxrt_instance;

typedef struct mxrt_instance_options {
  /** sizeof(mxrt_instance_options), so that fields can be added. */
  uint32_t struct_size;
  /** Threads this instance's kernels run on, the calling thread included;
   *  0 picks the default (1). Each instance with more than one thread owns
   *  num_threads - 1 workers, so an app that calls several instances at once
   *  keeps the machine's cores from being oversubscribed by keeping the sum
   *  of their num_threads at most the number of cores. At most 256. */
  int32_t num_threads;
  /** CUDA models (mxc --target=cuda) only: 1 if the tensors given to
   *  mxrt_instance_run / _call / _run_raw hold device memory of the GPU the
   *  runtime uses (device 0, e.g. from cuMemAlloc), read and written in
   *  place; 0 (the default): host memory, copied to and from the device on
   *  every call. */
  int32_t device_buffers;
} mxrt_instance_options;

/** Sets the defaults. */
MXRT_API void mxrt_instance_options_init(mxrt_instance_options *options);

/** New instance of `model` (options may be NULL); owned by the caller. The
 *  model must outlive it. */
MXRT_API mxrt_status mxrt_instance_create(const mxrt_model *model,
                                          const mxrt_instance_options *options,
                                          mxrt_instance **out_instance);
/** New instance of a model linked into the program; owns its own model
 *  handle. Owned by the caller. Used by generated <name>_create(). */
MXRT_API mxrt_status mxrt_instance_create_static(
    const struct mxrt_model_desc *desc, const mxrt_instance_options *options,
    mxrt_instance **out_instance);
/** Frees the instance. Accepts NULL. */
MXRT_API void mxrt_instance_release(mxrt_instance *instance);

/** Runs the model's forward function. inputs/outputs are in the model's
 *  order; their dtypes and shapes must match the model's exactly (an error
 *  names the first that does not), dynamic dimensions taking their values
 *  from the inputs and derived dimensions theirs from those
 *  (mxrt_model_bind_dims); nothing is written to the outputs when a check
 *  fails. The caller keeps owning all tensors.
 *  String outputs receive copies owned by their tensors. A string that a
 *  model cannot convert to a number fails the call (MXRT_INVALID_ARGUMENT);
 *  the outputs are then unspecified. */
MXRT_API mxrt_status mxrt_instance_run(mxrt_instance *instance,
                                       mxrt_tensor *const *inputs,
                                       int32_t num_inputs,
                                       mxrt_tensor *const *outputs,
                                       int32_t num_outputs);
/** Runs the forward function on raw buffers in the model's order, without
 *  shape checks (the typed generated API checks types at compile time). No
 *  pointer may be NULL. The caller keeps owning all buffers. The strings a
 *  string output points to belong to the instance (valid until its next
 *  call) or are the caller's input strings. */
MXRT_API mxrt_status mxrt_instance_run_raw(mxrt_instance *instance,
                                           const void *const *inputs,
                                           void *const *outputs);
/** mxrt_instance_run_raw for a model with dynamic dimensions: `dims` holds
 *  their values (mxrt_model_num_dims of them; those the forward function's
 *  inputs have are checked against their bounds, an error naming the
 *  dimension and the value, and the others ignored), from which the
 *  buffers' extents follow. Derived dimensions are computed from them as
 *  mxrt_model_bind_dims does, whatever `dims` holds for them: the outputs
 *  must have the extents mxrt_model_bind_dims gives. A model without dynamic
 *  dimensions ignores `dims` (which may then be NULL);
 *  mxrt_instance_run_raw refuses a model with them. */
MXRT_API mxrt_status mxrt_instance_run_raw_dims(mxrt_instance *instance,
                                                const int64_t *dims,
                                                const void *const *inputs,
                                                void *const *outputs);

/** The values of the model's dimensions (mxrt_model_num_dims of them) in
 *  the instance's last successful call, to `out_dims`: its counted
 *  dimensions as the call found them (how many elements the outputs that
 *  have them hold), -1 before any call. */
MXRT_API mxrt_status mxrt_instance_last_dims(const mxrt_instance *instance,
                                             int64_t *out_dims);

/*===------------------------------------------------------------------===*
 * Functions, parameters and training (libraries built with mxc --train).
 * A training library has the functions "forward" (inference with the
 * instance's current parameters), "grad" (inputs and labels -> outputs and
 * the gradient of every trainable parameter) and "train_step" (inputs,
 * labels and the learning rate as a float32 scalar -> outputs, updating
 * parameters and optimizer states in place).
 *===------------------------------------------------------------------===*/

MXRT_API int32_t mxrt_model_num_functions(const mxrt_model *model);
/** Name of function `index` (0 is "forward"), or NULL when out of range. */
MXRT_API const char *mxrt_model_function_name(const mxrt_model *model,
                                              int32_t index);
/** Index of the function called `name`, or MXRT_NOT_FOUND. */
MXRT_API mxrt_status mxrt_model_find_function(const mxrt_model *model,
                                              const char *name,
                                              int32_t *out_index);
MXRT_API int32_t mxrt_model_function_num_inputs(const mxrt_model *model,
                                                int32_t function);
MXRT_API int32_t mxrt_model_function_num_outputs(const mxrt_model *model,
                                                 int32_t function);
MXRT_API mxrt_status mxrt_model_function_input_info(const mxrt_model *model,
                                                    int32_t function,
                                                    int32_t index,
                                                    mxrt_tensor_info *out_info);
MXRT_API mxrt_status
mxrt_model_function_output_info(const mxrt_model *model, int32_t function,
                                int32_t index, mxrt_tensor_info *out_info);
/** The MXRT_TENSOR_* flags (mxrt/model_abi.h) of input `index` of function
 *  `function`: MXRT_TENSOR_CACHE for a key/value cache that a call reads and
 *  appends to in place, MXRT_TENSOR_LENGTH for the int64 scalar that gives
 *  the caches' filled length (mxc --kv-cache=in-place); 0 for other inputs
 *  and for indices out of range. */
MXRT_API int64_t mxrt_model_function_input_flags(const mxrt_model *model,
                                                 int32_t function,
                                                 int32_t index);

MXRT_API int32_t mxrt_model_num_params(const mxrt_model *model);
MXRT_API mxrt_status mxrt_model_param_info(const mxrt_model *model,
                                           int32_t index,
                                           mxrt_tensor_info *out_info);
/** Index of the parameter called `name`, or MXRT_NOT_FOUND. */
MXRT_API mxrt_status mxrt_model_find_param(const mxrt_model *model,
                                           const char *name,
                                           int32_t *out_index);

/** Runs function `function` on raw buffers in its order, without shape
 *  checks, as mxrt_instance_run_raw does the forward function (the typed
 *  API's <name>_grad / <name>_train_step call it). A function with a dynamic
 *  dimension is refused: mxrt_instance_call_raw_dims takes their values. */
MXRT_API mxrt_status mxrt_instance_call_raw(mxrt_instance *instance,
                                            int32_t function,
                                            const void *const *inputs,
                                            void *const *outputs);
/** mxrt_instance_call_raw with the values of the model's dynamic dimensions,
 *  as mxrt_instance_run_raw_dims takes them for the forward function (the
 *  typed training functions of a library with a dynamic batch call it). */
MXRT_API mxrt_status mxrt_instance_call_raw_dims(mxrt_instance *instance,
                                                 int32_t function,
                                                 const int64_t *dims,
                                                 const void *const *inputs,
                                                 void *const *outputs);
/** Runs function `function` (an index from mxrt_model_find_function) with
 *  the same checks as mxrt_instance_run. */
MXRT_API mxrt_status mxrt_instance_call(
    mxrt_instance *instance, int32_t function, mxrt_tensor *const *inputs,
    int32_t num_inputs, mxrt_tensor *const *outputs, int32_t num_outputs);
/** Called on the thread of an mxrt_instance_call, inside it, when output
 *  `output` of function `function` holds its final value: the library no
 *  longer reads or writes that output in this call. Libraries built by
 *  `mxc --train` report every gradient output of `grad` as soon as the
 *  backward pass has finished it, so that an app can start communicating
 *  it (a KVStore push) while the rest of the pass runs; other outputs are
 *  final when the call returns and are not reported. */
typedef void (*mxrt_output_callback)(void *arg, int32_t function,
                                     int32_t output);
/** Sets (or with NULL clears) the instance's output callback. */
MXRT_API mxrt_status mxrt_instance_set_output_callback(
    mxrt_instance *instance, mxrt_output_callback callback, void *arg);

/** Copies parameter `index` of the instance into `dst` (which must have its
 *  dtype and shape). An inference library holds its parameters as the
 *  compiler left them: where a BatchNorm was folded into the convolution
 *  before it (the default; mxc --no-fusion keeps them apart), that
 *  convolution's weight and bias (or the BatchNorm's beta, which became the
 *  bias) hold the folded values. */
MXRT_API mxrt_status mxrt_instance_get_param(const mxrt_instance *instance,
                                             int32_t index, mxrt_tensor *dst);
/** Overwrites parameter `index` of a training instance with `src` (dtype
 *  and shape must match). Inference instances read the model's weights in
 *  place: MXRT_UNSUPPORTED. */
MXRT_API mxrt_status mxrt_instance_set_param(mxrt_instance *instance,
                                             int32_t index,
                                             const mxrt_tensor *src);
/** Parameter `name` copied into `dst_bytes` bytes at `dst`, which must be
 *  its size (its dtype and shape, dense); MXRT_NOT_FOUND for an unknown
 *  name, MXRT_INVALID_ARGUMENT for another size, naming both. */
MXRT_API mxrt_status mxrt_instance_read_param(const mxrt_instance *instance,
                                              const char *name, void *dst,
                                              size_t dst_bytes);
/** Parameter `name` of a training instance overwritten from `src_bytes`
 *  bytes at `src`, checked as mxrt_instance_read_param. */
MXRT_API mxrt_status mxrt_instance_write_param(mxrt_instance *instance,
                                               const char *name,
                                               const void *src,
                                               size_t src_bytes);
/** A tensor viewing parameter `index` of a training instance in place:
 *  writes to it change the parameter that the instance's next call reads
 *  (no copy, as an imperative update of MXNet's bound arrays). Owned by
 *  the caller, who releases it before the instance; valid while the
 *  instance lives. Inference instances: MXRT_UNSUPPORTED. */
MXRT_API mxrt_status mxrt_instance_param_view(mxrt_instance *instance,
                                              int32_t index,
                                              mxrt_tensor **out_view);
/** Says that the instance's parameters were written through views
 *  (mxrt_instance_param_view) since its last call, for an instance that
 *  reports such writes (below). Kernels keep training weights packed
 *  (MXRT_KERNEL_PARAM_A) from one call to the next while they are unchanged;
 *  calls that update them, set_param and load_params need no report. */
MXRT_API mxrt_status mxrt_instance_params_changed(mxrt_instance *instance);
/** With `enabled`, the app reports writes through parameter views with
 *  mxrt_instance_params_changed (mx::Executor does). Otherwise (the
 *  default), once a view has been handed out every call assumes the
 *  parameters changed and packs them again. */
MXRT_API mxrt_status mxrt_instance_report_param_writes(mxrt_instance *instance,
                                                       int32_t enabled);
/** Writes the instance's parameters to `path` as an MXNet .params file
 *  (NDArray list format V2, names "arg:<name>" and "aux:<name>"), which mxc
 *  --params reads back. The file appears complete or not at all. */
MXRT_API mxrt_status mxrt_instance_save_params(const mxrt_instance *instance,
                                               const char *path);
/** Loads parameters from an MXNet .params file into a training instance:
 *  every parameter of the model must be present with its shape (float32,
 *  float64 and float16 data convert to the parameter's dtype). */
MXRT_API mxrt_status mxrt_instance_load_params(mxrt_instance *instance,
                                               const char *path);

/*===------------------------------------------------------------------===*
 * .params files of any named tensors (MXNet's mx.nd.save of a dict)
 *===------------------------------------------------------------------===*/

typedef struct mxrt_params mxrt_params;

/** Writes `tensors` under `names` (count of each) as an MXNet .params file;
 *  the file appears complete or not at all. */
MXRT_API mxrt_status mxrt_params_save(const char *path, size_t count,
                                      const char *const *names,
                                      const mxrt_tensor *const *tensors);
/** Reads every named array of an MXNet .params file (checked as untrusted
 *  input) into tensors owned by the returned list. */
MXRT_API mxrt_status mxrt_params_load(const char *path,
                                      mxrt_params **out_params);
MXRT_API void mxrt_params_release(mxrt_params *params);
MXRT_API size_t mxrt_params_count(const mxrt_params *params);
/** The name of array `index` as saved, or NULL past the end. */
MXRT_API const char *mxrt_params_name(const mxrt_params *params, size_t index);
/** Array `index` (owned by the list), or NULL past the end. */
MXRT_API const mxrt_tensor *mxrt_params_tensor(const mxrt_params *params,
                                               size_t index);
/** The first array saved as `name`, or NULL. */
MXRT_API const mxrt_tensor *mxrt_params_find(const mxrt_params *params,
                                             const char *name);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* MXRT_MXRT_H */
