// SPDX-License-Identifier: Apache-2.0
//
// Helpers shared by libmxrt's implementation files: recording the per-thread
// error message, keeping C++ exceptions from crossing the C API, and the
// structs behind the opaque handles. Not installed.

#ifndef MXRT_SRC_INTERNAL_H
#define MXRT_SRC_INTERNAL_H

#include "call_state.h"
#include "mxrt/model_abi.h"
#include "mxrt/mxrt.h"
#include "threadpool.h"

#include <atomic>
#include <cstdlib>
#include <initializer_list>
#include <memory>
#include <new>
#include <string>
#include <vector>

/// The object behind mxrt_tensor. Extents beyond ndim are zero.
struct mxrt_tensor {
  mxrt_dtype dtype;
  int32_t ndim;
  int64_t shape[MXRT_MAX_DIMS];
  int64_t numElements;
  size_t sizeBytes;
  /// The bytes `data` holds: sizeBytes, or more once a call set a counted
  /// output's extent below its bound (mxrt::setExtent).
  size_t capacityBytes;
  void *data;
  /// False for mxrt_tensor_wrap: the caller owns `data`.
  bool ownsData;
  /// String tensors: per element, the copy mxrt_tensor_set_string made (or
  /// NULL); allocated on the first set.
  char **strings;
};

/// The object behind mxrt_model. Immutable after creation, so that instances
/// on different threads can share it.
struct mxrt_model {
  const mxrt_model_desc *desc = nullptr;
  /// dlopen handle, or NULL for a statically linked model.
  void *library = nullptr;
  /// Where the model came from, for messages.
  std::string origin;
  /// The weights: desc->weights, or the mapped weights file's (mxc
  /// --weights=file; `weightsMap` is then the mapping, unmapped by
  /// mxrt_model_release).
  const uint8_t *weights = nullptr;
  void *weightsMap = nullptr;
  size_t weightsMapSize = 0;

  bool trainable() const { return desc->flags & MXRT_MODEL_TRAINABLE; }
  bool cuda() const { return desc->flags & MXRT_MODEL_CUDA; }
};

/// The object behind mxrt_instance: everything a call mutates.
struct mxrt_instance {
  const mxrt_model *model = nullptr;
  /// Set by mxrt_instance_create_static: released with the instance.
  mxrt_model *ownedModel = nullptr;
  /// Per function, the buffers handed to its entry point: [inputs...,
  /// outputs..., params..., states...]. Parameter and state slots are filled
  /// once at creation; input and output slots on every call.
  std::vector<std::vector<void *>> buffers;
  /// Where each parameter's data lives: in the model's read-only weights
  /// (inference) or in `storage` (training).
  std::vector<uint8_t *> params;
  /// Training instances: their own parameters, then their optimizer states,
  /// each 64-byte aligned. NULL for inference instances.
  uint8_t *storage = nullptr;
  /// Shared by all functions (one call at a time), `scratchBytes` long: the
  /// largest scratch_size of the functions without variants, grown when a
  /// call first runs variants, or a function with `shapes` at extents, that
  /// need more (their most would be sized for the largest batch or extents,
  /// which most apps never run).
  uint8_t *scratch = nullptr;
  size_t scratchBytes = 0;
  mxrt_exec_context context = {};
  /// Per function, the counts its calls write (mxrt_function_desc.counts).
  std::vector<std::vector<int64_t>> counts;
  /// The dimensions' values in the last successful call
  /// (mxrt_instance_last_dims).
  std::vector<int64_t> lastDims;
  int32_t numThreads = 1;
  /// Kernels' workers when numThreads > 1 (context.thread_pool points here).
  std::unique_ptr<mxrt::ThreadPool> pool;
  /// What compiled code's string functions use during a call.
  mxrt::CallState call;
  /// Training instances: the generation of the parameters' values
  /// (MXRT_KERNEL_PARAM_A operands packed at it are still good): new at
  /// creation and whenever the parameters may have changed (mxrt::
  /// paramsChanged). With views handed out whose writes the app does not
  /// report (mxrt_instance_report_param_writes), every call takes a new one.
  uint64_t paramGeneration = 0;
  size_t storageBytes = 0;
  bool viewsHandedOut = false;
  bool reportsViewWrites = false;
  /// CUDA models: the app's tensors are device memory, used in place
  /// (mxrt_instance_options.device_buffers).
  bool deviceBuffers = false;
  /// Set while a thread is in a call (mxrt::CallGuard): a second thread's
  /// call fails instead of sharing the buffers and scratch.
  std::atomic<bool> inCall{false};
  /// CUDA models: every device allocation of the instance (parameters,
  /// scratch, each function's input and output copies); `buffers` point
  /// into them, `scratch` and `params` too.
  std::vector<void *> device;

  ~mxrt_instance();
};

namespace mxrt {

/// The instance's parameters may have changed: a new generation, so that
/// kernels pack them again.
void paramsChanged(mxrt_instance *instance);

/// Maps the weights file of `desc` (mxc --weights=file) into `model`
/// (weights, weightsMap, weightsMapSize), from the folder of the library
/// holding `desc`, after checking its header against the descriptor.
mxrt_status mapWeightsFile(const mxrt_model_desc *desc,
                           const std::string &origin, mxrt_model &model);

/// MXC_MAX_INPUT_BYTES (compiler/model/InputLimit.h, docs/security.md): fails
/// with MXRT_INVALID_ARGUMENT, naming `path`, when the untrusted file there
/// holds more than the cap allows (or the variable is not a byte count).
mxrt_status checkInputBytes(const char *path, uint64_t bytes);

/// Records a printf-style message as this thread's last error and returns
/// `status`, so that failures read `return fail(MXRT_..., "...", ...);`.
mxrt_status fail(mxrt_status status, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

/// A pointer argument of a C API call as checkNotNull sees it: its name in
/// the API ("out_index") and its value.
struct PointerArg {
  const char *name;
  const void *value;
};

/// Fails with INVALID_ARGUMENT "<what>: <name> is NULL" for the first NULL
/// of `args`, in order, so that every API function reports a missing
/// argument in the same words; MXRT_OK when none is NULL.
mxrt_status checkNotNull(const char *what,
                         std::initializer_list<PointerArg> args);

/// Checks everything the runtime later relies on in the table `desc`
/// (model_table.cpp); `origin` opens each message ("model 'x' (linked in)").
mxrt_status checkDescriptor(const std::string &origin,
                            const mxrt_model_desc *desc);

/// Fails with UNSUPPORTED unless `model` is a training model: an inference
/// instance reads the model's weights in place, so that a call naming `what`
/// cannot `verb` ("change", "load") its parameters.
mxrt_status requireTrainable(const char *what, const mxrt_model *model,
                             const char *verb);

/// Whether `dtype` is one of the mxrt_dtype codes.
bool isValidDtype(int64_t dtype);

/// What the runtime knows of a dtype: the one table behind mxrt_dtype_name,
/// mxrt_dtype_size and the .npy type strings.
struct DtypeInfo {
  mxrt_dtype dtype;
  /// mxrt_dtype_name's answer, e.g. "float32".
  const char *name;
  /// Bytes per element.
  size_t size;
  /// NumPy's type string for it ("<f4", "|u1"), or NULL where NumPy has none
  /// (bfloat16, strings).
  const char *npyType;
};

/// The entry of dtype `code`, or NULL when `code` is not an mxrt_dtype (the
/// codes run from MXRT_F32, 0, to MXRT_STRING).
const DtypeInfo *dtypeInfo(int64_t code);

/// The integer a C caller passed as an mxrt_dtype. Read without loading the
/// enum, since a C++ enum holding an unknown code is undefined behaviour and
/// C callers may pass any int.
int64_t dtypeCode(const mxrt_dtype &dtype);

/// "1x3x32x32", or "scalar" for a 0-d shape; with `dims` (a model's), a
/// dynamic extent shows as its dimension's name ("Nx3x32x32").
std::string shapeString(int64_t ndim, const int64_t *shape,
                        const mxrt_dim_desc *dims = nullptr);

/// Checks dtype, ndim and shape as tensor constructors see them and computes
/// the element count and byte size; `what` names the call in messages.
mxrt_status checkTensorArgs(const char *what, int64_t dtype, int32_t ndim,
                            const int64_t *shape, int64_t *outNumElements,
                            size_t *outSizeBytes);

/// Frees the copies mxrt_tensor_set_string made.
void releaseStrings(mxrt_tensor *tensor);

/// Sets extent `axis` of `tensor` to `extent` (a counted output's: its
/// bound before a call, what the call found after it; the elements are the
/// buffer's first); false, changing nothing, when its buffer is too small.
bool setExtent(mxrt_tensor *tensor, int32_t axis, int64_t extent);

/// After a call: gives every string output of `fn` copies owned by its
/// tensor (the model wrote pointers into the call's arena or the inputs).
mxrt_status copyStringOutputs(const mxrt_function_desc &fn,
                              mxrt_tensor *const *outputs);

/// 64-byte aligned allocation of at least `size` bytes (at least one cache
/// line, so that empty tensors still get a unique non-null pointer); NULL
/// when out of memory. Free with std::free.
void *alignedAlloc(size_t size);

/// A byte range of a file being written.
struct FileChunk {
  const void *data;
  size_t size;
};

/// Writes `chunks` to `path` through a temporary file renamed over it, so that
/// the file appears complete or not at all (a failure removes the temporary).
mxrt_status writeFileAtomically(const char *path, const FileChunk *chunks,
                                size_t numChunks);

/// Runs `body` (returning mxrt_status) and turns any C++ exception into an
/// error status: exceptions must never cross the C API.
template <typename Body> mxrt_status guarded(Body &&body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc &) {
    return fail(MXRT_OUT_OF_MEMORY, "out of memory");
  } catch (...) {
    return fail(MXRT_INTERNAL, "unexpected C++ exception inside libmxrt");
  }
}

} // namespace mxrt

#endif // MXRT_SRC_INTERNAL_H
