// SPDX-License-Identifier: Apache-2.0
// What a compiled model looks like from outside: its functions' inputs and
// outputs and its parameters with their data. Frontends fill it in beside the
// MLIR module; codegen turns it into the reflective table, the weights blob
// and the generated C header.
#ifndef MXC_COMPILER_MODEL_MODELSPEC_H
#define MXC_COMPILER_MODEL_MODELSPEC_H

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mxc {

/// Element type codes shared with the runtime (mxrt_dtype, MXNet's flags).
enum class DType : int64_t {
  F32 = 0,
  F64 = 1,
  F16 = 2,
  U8 = 3,
  I32 = 4,
  I8 = 5,
  I64 = 6,
  Bool = 7,
  I16 = 8,
  U16 = 9,
  U32 = 10,
  U64 = 11,
  BF16 = 12,
  /// Text: a `const char *` per element (ONNX's STRING).
  String = 13,
};

/// Bytes per element.
size_t dtypeSize(DType dtype);
/// The C type of an element ("float", "int64_t", ...).
const char *dtypeCType(DType dtype);
/// NumPy-style name ("float32").
const char *dtypeName(DType dtype);

struct TensorSpec {
  std::string name;
  DType dtype = DType::F32;
  /// Extents; below 0, the model's dynamic dimension dimIndex(extent)
  /// (ModelSpec::dims), as in the ABI's tables (MXRT_DIM_EXTENT).
  std::vector<int64_t> shape;
  /// Inputs of mxc --kv-cache=in-place: a key/value cache, read and
  /// appended to in place (MXRT_TENSOR_CACHE), or the filled length of the
  /// caches, an int64 scalar that gives dimension `lengthOf`
  /// (MXRT_TENSOR_LENGTH).
  bool cache = false;
  int64_t lengthOf = -1;

  /// Elements (bytes), every dynamic dimension counted as 1: one row's.
  int64_t numElements() const;
  int64_t sizeBytes() const { return numElements() * dtypeSize(dtype); }
};

/// A parameter's bytes, kept alive by whoever made them (a frontend's
/// constant, a file's contents) and shared rather than copied: a 500 MB
/// model's weights exist once while it compiles. Never written through; a
/// rewrite of a parameter gives it new bytes (ModelSpec::mutableParamData).
class ParamBytes {
public:
  ParamBytes() = default;
  /// Shares `size` bytes at `data`, which `owner` keeps alive.
  ParamBytes(std::shared_ptr<const void> owner, const uint8_t *data,
             size_t size)
      : owner(std::move(owner)), bytes(data), count(size) {}
  /// A private copy of `size` bytes at `data`.
  static ParamBytes copyOf(const uint8_t *data, size_t size);

  const uint8_t *data() const { return bytes; }
  size_t size() const { return count; }
  /// Whether nobody else holds these bytes (a rewrite may then reuse them).
  bool unique() const { return owner.use_count() == 1; }

private:
  std::shared_ptr<const void> owner;
  const uint8_t *bytes = nullptr;
  size_t count = 0;
};

/// A parameter (weight or auxiliary state), its bytes, and where they go in
/// the model's weights blob.
struct ParamSpec : TensorSpec {
  int64_t offset = 0;
  /// An auxiliary state (BatchNorm's moving statistics), not learned.
  bool aux = false;
  /// sizeBytes() bytes.
  ParamBytes data;
};

/// A function of a training library besides the forward one ("grad",
/// "train_step"): its MLIR function has the same name. Lowered, it takes
/// (inputs, params, states read, outputs, [params, states,] [arena]): all
/// states, and the bracketed groups, when `updatesState` (the results after
/// the outputs are the new parameters and states, written in place).
struct FunctionSpec {
  std::string name;
  std::vector<TensorSpec> inputs;
  std::vector<TensorSpec> outputs;
  bool updatesState = false;
  /// How many of the model's states (from the first) a function that does
  /// not update them reads (grad: the dropout counter).
  size_t statesRead = 0;
};

/// The extent standing for dynamic dimension `index` in a TensorSpec shape,
/// and back (runtime/include/mxrt/model_abi.h: MXRT_DIM_EXTENT).
inline int64_t dimExtent(size_t index) { return -1 - int64_t(index); }
inline size_t dimIndex(int64_t extent) { return size_t(-1 - extent); }

/// A dynamic dimension (`--input data=Nx3x224x224`, an ONNX dim_param):
/// every extent that names it takes the same value in a call.
struct DimSpec {
  std::string name;
  int64_t min = 1;
  int64_t max = -1; ///< -1: unbounded
  /// An output's extent that the forward computes from the others
  /// (MXRT_DIM_DERIVED): min 0, max -1.
  bool derived = false;
  /// Derived too: an extent only the forward finds as it runs (NonZero's
  /// count; MXRT_DIM_COUNTED), at most max; the forward's results after
  /// its outputs give it (ModelSpec::counts).
  bool counted = false;
};

/// The forward function compiled for `batch` rows of a dynamic batch
/// dimension (ModelSpec::variants).
struct VariantSpec {
  int64_t batch = 1;
  /// Its arena's bytes (as ModelSpec::scratchSize).
  int64_t scratchSize = -1;
};

struct ModelSpec {
  /// A C identifier: the prefix of every exported symbol.
  std::string name;
  /// The forward function's (MLIR @forward) inputs and outputs.
  std::vector<TensorSpec> inputs;
  std::vector<TensorSpec> outputs;
  std::vector<ParamSpec> params;
  /// Training libraries (mxc --train): the other functions, the optimizer
  /// states, and which parameters the optimizer learns (by index).
  std::vector<FunctionSpec> functions;
  std::vector<TensorSpec> states;
  std::vector<bool> trainable;
  bool isTraining() const { return !functions.empty(); }
  /// Bytes of the weights blob: every parameter at its offset, 64-byte
  /// aligned.
  int64_t weightsSize = 0;
  /// mxc --weights=file: the name of the weights file beside the library
  /// (runtime/include/mxrt/model_abi.h) and the weights' hash
  /// (weightsHash()); empty: the weights are embedded.
  std::string weightsFile;
  uint64_t weightsFileHash = 0;
  /// Bytes of the per-instance arena the forward function takes as its last
  /// argument (the memory plan), or -1 when it takes none.
  int64_t scratchSize = -1;
  /// Compiled for an NVIDIA GPU (mxc --target=cuda): every buffer the
  /// functions take is device memory (MXRT_MODEL_CUDA).
  bool cuda = false;
  /// The dynamic dimensions input and output shapes refer to.
  std::vector<DimSpec> dims;
  /// A forward function whose rows are independent along dims[batchDim] is
  /// compiled once per batch extent (increasing, the first 1), its MLIR
  /// functions named variantFunctionName(batch); the runtime runs them on
  /// slices of a call's rows (mxrt_variant_desc). Empty otherwise.
  std::vector<VariantSpec> variants;
  int64_t batchDim = -1;
  /// The forward is compiled once with its dynamic extents in the code
  /// (any axis): it takes the dimensions' values as an argument before the
  /// arena, and its MLIR @forward_shapes sets the derived ones
  /// (mxrt_function_desc.shapes).
  bool shapeFunction = false;
  /// The forward's data-dependent extents: its last counts.size() results
  /// (int64 scalars, after those of `outputs`) are the values of these
  /// counted dimensions (mxrt_function_desc.counts).
  std::vector<int64_t> counts;

  /// Appends a parameter with a copy of its bytes.
  void addParam(TensorSpec spec, const uint8_t *data);
  /// Appends a parameter sharing `data` (spec.sizeBytes() bytes).
  void addParam(TensorSpec spec, ParamBytes data);
  /// Parameter `index`'s bytes for writing: its own copy unless nobody else
  /// holds them.
  uint8_t *mutableParamData(size_t index);
  /// The weights blob, laid out by the parameters' offsets: a copy of all of
  /// them, for outputs that embed the weights as one LLVM constant (.ll, .o);
  /// libraries stream them instead (compiler/codegen/WeightsWriter.h).
  std::vector<uint8_t> weightsBlob() const;
};

} // namespace mxc

#endif // MXC_COMPILER_MODEL_MODELSPEC_H
