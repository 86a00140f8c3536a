// SPDX-License-Identifier: Apache-2.0
// Fuzzes the runtime's validation of a compiled model's tables
// (checkDescriptor, behind mxrt_model_open and mxrt_model_from_descriptor):
// the input is decoded into an mxrt_model_desc (counts, names, dtypes,
// shapes, sizes, offsets, flags) whose every pointer points into buffers
// built here, of exactly the length the table claims or NULL; only counts
// the runtime must reject (negative, over its limits) may disagree with
// them. A table the runtime accepts is then used as an app would: queried,
// instantiated and called, with an entry point that touches every byte the
// contract (model_abi.h) promises it, so ASan sees any short buffer: a
// function with batch variants is called with a fuzzed number of rows, each
// variant's entry touching the rows it was compiled for, and a function with
// a shapes function (model ABI 6) at several extents, its entry touching
// what the dimensions' values in its context say, the derived ones set by
// fuzzShapes; and a function with counts (model ABI 8), its entry writing
// each count.
#include "mxrt/model_abi.h"
#include "mxrt/mxrt.h"

#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <vector>

namespace {

/// Owns everything the descriptor points to; deques keep addresses stable.
struct Tables {
  std::deque<std::string> strings;
  std::deque<std::vector<int64_t>> shapes;
  std::deque<std::vector<mxrt_tensor_desc>> tensorTables;
  std::vector<mxrt_function_desc> functions;
  std::deque<std::vector<mxrt_variant_desc>> variantTables;
  std::vector<mxrt_dim_desc> dims;
  std::vector<mxrt_tensor_desc> params, states;
  std::unique_ptr<uint8_t[]> weights;
  mxrt_model_desc model{};
};

/// The function the entry point below is running, set before each call.
const mxrt_model_desc *currentModel = nullptr;
const mxrt_function_desc *currentFunction = nullptr;
/// What fuzzShapes gives every derived dimension, and the scratch it asks
/// for beyond the function's scratch_size (fuzzed per input).
int64_t derivedValue = 1;
int64_t extraScratch = 0;
/// What the entry writes to every count (model ABI 8; fuzzed per input,
/// mostly within the bounds).
int64_t countValue = 0;

uint64_t bytesOf(const mxrt_tensor_desc &desc) {
  return static_cast<uint64_t>(desc.size_bytes);
}

/// Bytes of a tensor of `desc` whose dynamic extents have the values `dims`
/// (the model's); UINT64_MAX when that overflows or a value is below 0.
uint64_t bytesOf(const mxrt_tensor_desc &desc, const int64_t *dims) {
  uint64_t bytes = mxrt_dtype_size(static_cast<mxrt_dtype>(desc.dtype));
  for (int64_t d = 0; d < desc.ndim; ++d) {
    int64_t extent =
        desc.shape[d] < 0 ? dims[MXRT_DIM_INDEX(desc.shape[d])] : desc.shape[d];
    if (extent < 0 ||
        __builtin_mul_overflow(bytes, static_cast<uint64_t>(extent), &bytes))
      return UINT64_MAX;
  }
  return bytes;
}

/// The shapes function of every function that has one: sets the derived
/// dimensions, and only those (the runtime refuses a call otherwise), and
/// asks for scratch beyond the static part (which the entry touches).
int64_t fuzzShapes(int64_t *dims) {
  for (int64_t i = 0; i < currentModel->num_dims; ++i)
    if (currentModel->dims[i].flags & MXRT_DIM_DERIVED)
      dims[i] = derivedValue;
  return currentFunction->scratch_size + extraScratch;
}

/// Bytes of `rows` rows of a tensor of a function with variants (its
/// size_bytes counts the batch dimension as 1).
uint64_t bytesOf(const mxrt_tensor_desc &desc, int64_t rows) {
  bool batched = desc.ndim > 0 && desc.shape[0] < 0;
  return bytesOf(desc) * static_cast<uint64_t>(batched ? rows : 1);
}

void touch(void *data, uint64_t bytes, bool write) {
  volatile uint8_t sink = 0;
  auto *p = static_cast<uint8_t *>(data);
  for (uint64_t i = 0; i < bytes; ++i) {
    if (write)
      p[i] = static_cast<uint8_t>(i);
    else
      sink = sink + p[i];
  }
}

/// Writes every byte of an output: a string tensor's elements are
/// `const char *` (mxrt.h), which a call through tensors copies the strings
/// of, so they point at one.
void writeOutput(const mxrt_tensor_desc &desc, void *data, uint64_t bytes) {
  if (desc.dtype != MXRT_STRING)
    return touch(data, bytes, true);
  static const char kEmpty[] = "";
  auto **elements = static_cast<const char **>(data);
  for (uint64_t i = 0; i < bytes / sizeof(const char *); ++i)
    elements[i] = kEmpty;
}

/// Reads every input, parameter and state, writes every output (and the
/// parameters and states of a function that updates them) and the scratch.
/// A function with `shapes` has its dimensions' values in `ctx`, and its
/// tensors the extents they give.
void entry(void *const *buffers, mxrt_exec_context *ctx) {
  const mxrt_function_desc &fn = *currentFunction;
  if (!fn.shapes != !ctx->dims)
    __builtin_trap(); // the context's dims are a shapes function's alone
  auto bytes = [&](const mxrt_tensor_desc &desc) {
    return ctx->dims ? bytesOf(desc, ctx->dims) : bytesOf(desc);
  };
  bool updates = fn.flags & MXRT_FUNCTION_UPDATES_STATE;
  size_t b = 0;
  for (int64_t i = 0; i < fn.num_inputs; ++i)
    touch(buffers[b++], bytes(fn.inputs[i]), false);
  for (int64_t i = 0; i < fn.num_outputs; ++i)
    writeOutput(fn.outputs[i], buffers[b++], bytes(fn.outputs[i]));
  for (int64_t i = 0; i < currentModel->num_params; ++i)
    touch(buffers[b++], bytesOf(currentModel->params[i]), updates);
  for (int64_t i = 0; i < currentModel->num_states; ++i)
    touch(buffers[b++], bytesOf(currentModel->states[i]), updates);
  for (int64_t k = 0; k < fn.num_counts; ++k) // model ABI 8
    *static_cast<int64_t *>(buffers[b++]) = countValue;
  int64_t scratch = fn.scratch_size + (fn.shapes ? extraScratch : 0);
  if (scratch)
    touch(ctx->scratch, scratch, true);
}

/// The entry of a variant for `Rows` rows: inputs and outputs with the batch
/// dimension hold that many rows; the scratch is the variant's. (Rows 0: a
/// variant of a batch outside 1..4, which touches no rows and no scratch.)
template <int64_t Rows>
void variantEntry(void *const *buffers, mxrt_exec_context *ctx) {
  const mxrt_function_desc &fn = *currentFunction;
  size_t b = 0;
  for (int64_t i = 0; i < fn.num_inputs; ++i)
    touch(buffers[b++], bytesOf(fn.inputs[i], Rows), false);
  for (int64_t i = 0; i < fn.num_outputs; ++i)
    writeOutput(fn.outputs[i], buffers[b++], bytesOf(fn.outputs[i], Rows));
  for (int64_t i = 0; i < currentModel->num_params; ++i)
    touch(buffers[b++], bytesOf(currentModel->params[i]), false);
  for (int64_t v = 0; v < fn.num_variants; ++v)
    if (fn.variants[v].batch == Rows && fn.variants[v].scratch_size)
      touch(ctx->scratch, fn.variants[v].scratch_size, true);
}

constexpr mxrt_entry_fn kVariantEntries[] = {variantEntry<1>, variantEntry<2>,
                                             variantEntry<3>, variantEntry<4>};

/// A count for a table of `actual` entries: almost always `actual`, else one
/// the runtime must refuse. (Each choice's common case is the one a short
/// input, whose integers read as their minimum, makes.)
int64_t countFor(FuzzedDataProvider &in, int64_t actual, int64_t limit) {
  switch (in.ConsumeIntegralInRange(0, 15)) {
  case 14:
    return -in.ConsumeIntegralInRange<int64_t>(1, INT64_MAX);
  case 15:
    return in.ConsumeIntegralInRange<int64_t>(limit + 1, INT64_MAX);
  default:
    return actual;
  }
}

int64_t smallOrAny(FuzzedDataProvider &in, int64_t low, int64_t high) {
  return in.ConsumeIntegralInRange(0, 7) == 7
             ? in.ConsumeIntegral<int64_t>()
             : in.ConsumeIntegralInRange<int64_t>(low, high);
}

const char *name(FuzzedDataProvider &in, Tables &t) {
  if (in.ConsumeIntegralInRange(0, 31) == 31)
    return nullptr;
  return t.strings.emplace_back(in.ConsumeRandomLengthString(12)).c_str();
}

/// An entry of a tensor table; `batchDim` (-1: none) is the batch dimension
/// of the function with variants whose input or output it is, which axis 0
/// then mostly takes.
mxrt_tensor_desc tensor(FuzzedDataProvider &in, Tables &t, int64_t batchDim) {
  mxrt_tensor_desc desc{};
  desc.name = name(in, t);
  desc.dtype = smallOrAny(in, -1, MXRT_STRING + 1);
  size_t rank = in.ConsumeIntegralInRange<size_t>(0, MXRT_MAX_DIMS + 1);
  std::vector<int64_t> &shape = t.shapes.emplace_back();
  for (size_t d = 0; d < rank; ++d) {
    bool batched =
        d == 0 && batchDim >= 0 && in.ConsumeIntegralInRange(0, 3) != 3;
    shape.push_back(batched ? MXRT_DIM_EXTENT(batchDim)
                    : in.ConsumeIntegralInRange(0, 15) == 15
                        ? MXRT_DIM_EXTENT(in.ConsumeIntegralInRange(0, 2))
                        : smallOrAny(in, 0, 9));
  }
  desc.ndim = countFor(in, static_cast<int64_t>(rank), MXRT_MAX_DIMS);
  desc.shape = in.ConsumeIntegralInRange(0, 31) == 31 ? nullptr : shape.data();
  // The size the runtime expects, most of the time.
  uint64_t bytes = desc.dtype >= 0 && desc.dtype <= MXRT_STRING
                       ? mxrt_dtype_size(static_cast<mxrt_dtype>(desc.dtype))
                       : 1;
  for (int64_t d : shape) // a dynamic extent counts as 1
    if (__builtin_mul_overflow(bytes, static_cast<uint64_t>(d < 0 ? 1 : d),
                               &bytes))
      bytes = 1;
  desc.size_bytes = in.ConsumeIntegralInRange(0, 7) == 7
                        ? in.ConsumeIntegral<int64_t>()
                        : static_cast<int64_t>(bytes);
  desc.offset = in.ConsumeIntegralInRange(0, 7) == 7
                    ? in.ConsumeIntegral<int64_t>()
                    : in.ConsumeIntegralInRange<int64_t>(0, 4) * 64;
  desc.flags = smallOrAny(in, 0, 3);
  return desc;
}

const mxrt_tensor_desc *tensorTable(FuzzedDataProvider &in, Tables &t,
                                    int64_t &count, int64_t limit,
                                    int64_t batchDim = -1) {
  size_t n = in.ConsumeIntegralInRange<size_t>(0, 4);
  std::vector<mxrt_tensor_desc> &table = t.tensorTables.emplace_back();
  for (size_t i = 0; i < n; ++i)
    table.push_back(tensor(in, t, batchDim));
  count = countFor(in, static_cast<int64_t>(n), limit);
  if (in.ConsumeIntegralInRange(0, 31) == 31)
    return nullptr;
  return table.data();
}

void build(FuzzedDataProvider &in, Tables &t) {
  mxrt_model_desc &m = t.model;
  m.abi_version = in.ConsumeIntegralInRange(0, 15) == 15
                      ? in.ConsumeIntegral<int64_t>()
                      : MXRT_MODEL_ABI_VERSION;
  m.name = name(in, t);
  m.flags = in.ConsumeIntegralInRange(0, 15) == 15
                ? in.ConsumeIntegral<int64_t>()
                : in.ConsumeIntegralInRange<int64_t>(0, 1);
  // 1 to 3 functions mostly; none at times.
  size_t numFunctions = (in.ConsumeIntegralInRange<size_t>(0, 3) + 1) % 4;
  for (size_t f = 0; f < numFunctions; ++f) {
    mxrt_function_desc fn{};
    fn.name = name(in, t);
    // Batch variants (below) and their dimension first: the inputs and
    // outputs mostly have it on axis 0, or the runtime would refuse them.
    bool hasVariants = in.ConsumeBool();
    int64_t batchDim = hasVariants ? smallOrAny(in, 0, 2) : -1;
    int64_t hint = batchDim >= 0 && batchDim <= 2 ? batchDim : -1;
    fn.inputs = tensorTable(in, t, fn.num_inputs, INT32_MAX / 2, hint);
    fn.outputs = tensorTable(in, t, fn.num_outputs, INT32_MAX / 2, hint);
    fn.entry = in.ConsumeIntegralInRange(0, 31) == 31 ? nullptr : entry;
    fn.scratch_size = smallOrAny(in, 0, 4096);
    fn.flags = smallOrAny(in, 0, 1);
    // Batch variants, mostly well formed: increasing from 1, each with the
    // entry for its rows.
    if (hasVariants) {
      std::vector<mxrt_variant_desc> &variants = t.variantTables.emplace_back();
      int64_t batch = in.ConsumeIntegralInRange<int64_t>(0, 1);
      for (size_t v = in.ConsumeIntegralInRange<size_t>(0, 3); v > 0; --v) {
        if (v == 3 || in.ConsumeIntegralInRange(0, 15) == 15)
          batch = smallOrAny(in, -1, 4);
        else // (batch may be any int64 after smallOrAny: no overflow)
          batch = batch < 4 ? batch + 1 : 4;
        int64_t scratch = in.ConsumeIntegralInRange<int64_t>(0, 2) * 512;
        // Not `entry`, which touches the function's scratch, not the
        // variant's.
        mxrt_entry_fn e = batch >= 1 && batch <= 4 ? kVariantEntries[batch - 1]
                                                   : variantEntry<0>;
        variants.push_back(
            {batch, in.ConsumeIntegralInRange(0, 31) == 31 ? nullptr : e,
             scratch});
        fn.scratch_size = std::max(fn.scratch_size, scratch);
      }
      fn.num_variants = countFor(in, int64_t(variants.size()), INT32_MAX);
      fn.variants = variants.empty() ? nullptr : variants.data();
      fn.batch_dim = batchDim;
      if (in.ConsumeBool())
        fn.entry = nullptr;
    }
    t.functions.push_back(fn);
  }
  m.num_functions = countFor(in, static_cast<int64_t>(numFunctions), INT32_MAX);
  m.functions = numFunctions ? t.functions.data() : nullptr;
  int64_t weightsSize = in.ConsumeIntegralInRange<int64_t>(0, 1024);
  t.weights.reset(new uint8_t[weightsSize]());
  m.weights =
      in.ConsumeIntegralInRange(0, 31) == 31 ? nullptr : t.weights.get();
  m.weights_size = in.ConsumeIntegralInRange(0, 15) == 15
                       ? -in.ConsumeIntegralInRange<int64_t>(1, INT64_MAX)
                       : weightsSize;
  m.params = tensorTable(in, t, m.num_params, INT32_MAX / 2);
  m.states = tensorTable(in, t, m.num_states, INT32_MAX / 2);
  for (size_t d = in.ConsumeIntegralInRange<size_t>(0, 2); d > 0; --d)
    t.dims.push_back(
        {name(in, t), smallOrAny(in, 0, 2), smallOrAny(in, -1, 9), 0});
  m.num_dims = countFor(in, int64_t(t.dims.size()), INT32_MAX);
  m.dims = t.dims.empty() ? nullptr : t.dims.data();
  // Model ABI 6, decided last so that inputs from before it (whose integers
  // then read as 0) decode as they did: derived dimensions (mostly with the
  // bounds they must have), functions with a shapes function, and what it
  // gives the derived dimensions.
  for (mxrt_dim_desc &dim : t.dims)
    switch (in.ConsumeIntegralInRange(0, 7)) {
    case 5:
    case 6:
      dim = {dim.name, 0, -1, MXRT_DIM_DERIVED};
      break;
    case 7:
      dim.flags = smallOrAny(in, 0, 3);
      break;
    default:
      break;
    }
  for (mxrt_function_desc &fn : t.functions)
    if (in.ConsumeIntegralInRange(0, 3) == 3)
      fn.shapes = fuzzShapes;
  derivedValue = in.ConsumeIntegralInRange(0, 7) == 7
                     ? smallOrAny(in, -2, 1000)
                     : in.ConsumeIntegralInRange<int64_t>(1, 3);
  extraScratch = in.ConsumeIntegralInRange<int64_t>(0, 3) * 1000;
  // Model ABI 8, last for the same reason: counted dimensions (mostly
  // derived and bounded, as they must be) and functions' counts of them.
  for (mxrt_dim_desc &dim : t.dims)
    if (in.ConsumeIntegralInRange(0, 7) == 7)
      dim = {dim.name, 0, smallOrAny(in, -1, 4),
             in.ConsumeIntegralInRange(0, 3) == 3
                 ? MXRT_DIM_COUNTED
                 : MXRT_DIM_DERIVED | MXRT_DIM_COUNTED};
  for (mxrt_function_desc &fn : t.functions)
    if (in.ConsumeIntegralInRange(0, 3) == 3) {
      std::vector<int64_t> &counts = t.shapes.emplace_back();
      for (size_t k = in.ConsumeIntegralInRange<size_t>(0, 2); k > 0; --k)
        counts.push_back(smallOrAny(in, 0, 2));
      fn.num_counts = countFor(in, int64_t(counts.size()), INT32_MAX);
      fn.counts = counts.empty() ? nullptr : counts.data();
    }
  countValue = smallOrAny(in, -1, 5);
}

/// Calls function `f`, which has variants or a shapes function, through
/// tensors whose dynamic extents are all `rows` (but derived ones, which
/// mxrt_model_bind_dims gives), and through raw pointers (refused where the
/// extents are not within the dimensions' bounds).
void callRows(const mxrt_model *model, mxrt_instance *instance,
              const mxrt_model_desc &m, int32_t f, int64_t rows) {
  const mxrt_function_desc &fn = m.functions[f];
  std::vector<mxrt_tensor *> tensors;
  std::vector<void *> data;
  std::vector<int64_t> dims(size_t(m.num_dims), rows);
  auto make = [&](const mxrt_tensor_desc &desc) {
    int64_t shape[MXRT_MAX_DIMS];
    for (int64_t d = 0; d < desc.ndim; ++d)
      shape[d] = desc.shape[d] < 0 ? dims[MXRT_DIM_INDEX(desc.shape[d])]
                                   : desc.shape[d];
    mxrt_tensor *t = nullptr;
    if (bytesOf(desc, dims.data()) <= (1u << 16) &&
        mxrt_tensor_create(static_cast<mxrt_dtype>(desc.dtype),
                           static_cast<int32_t>(desc.ndim), shape,
                           &t) == MXRT_OK) {
      tensors.push_back(t);
      data.push_back(mxrt_tensor_data(t));
    }
  };
  currentModel = &m;
  currentFunction = &fn;
  for (int64_t i = 0; i < fn.num_inputs; ++i)
    make(fn.inputs[i]);
  // The outputs' derived extents follow from the inputs'.
  std::vector<int64_t> bound(dims.size());
  if (fn.shapes && tensors.size() == size_t(fn.num_inputs) &&
      mxrt_model_bind_dims(model, f, tensors.data(),
                           static_cast<int32_t>(fn.num_inputs),
                           bound.data()) == MXRT_OK)
    for (size_t d = 0; d < dims.size(); ++d)
      if (m.dims[d].flags & MXRT_DIM_DERIVED)
        dims[d] = bound[d];
  for (int64_t i = 0; i < fn.num_outputs; ++i)
    make(fn.outputs[i]);
  if (tensors.size() == size_t(fn.num_inputs + fn.num_outputs)) {
    (void)mxrt_instance_call(
        instance, f, tensors.data(), static_cast<int32_t>(fn.num_inputs),
        tensors.data() + fn.num_inputs, static_cast<int32_t>(fn.num_outputs));
    if (f == 0)
      (void)mxrt_instance_run_raw_dims(instance, dims.data(), data.data(),
                                       data.data() + fn.num_inputs);
  }
  for (mxrt_tensor *t : tensors)
    mxrt_tensor_release(t);
}

/// Whether an instance of the accepted model is small enough to create.
bool smallEnough(const mxrt_model_desc &m) {
  uint64_t total = 0;
  for (int64_t f = 0; f < m.num_functions; ++f)
    total += static_cast<uint64_t>(m.functions[f].scratch_size);
  for (int64_t i = 0; i < m.num_params; ++i)
    total += bytesOf(m.params[i]);
  for (int64_t i = 0; i < m.num_states; ++i)
    total += bytesOf(m.states[i]);
  return total <= (1u << 20);
}

/// Calls function `f` with zeroed buffers of exactly the sizes it declares.
void call(mxrt_instance *instance, const mxrt_model_desc &m, int32_t f) {
  const mxrt_function_desc &fn = m.functions[f];
  uint64_t total = 0;
  for (int64_t i = 0; i < fn.num_inputs; ++i)
    total += bytesOf(fn.inputs[i]);
  for (int64_t i = 0; i < fn.num_outputs; ++i)
    total += bytesOf(fn.outputs[i]);
  if (total > (1u << 20))
    return;
  std::vector<std::unique_ptr<uint8_t[]>> storage;
  std::vector<const void *> inputs;
  std::vector<void *> outputs;
  auto buffer = [&](const mxrt_tensor_desc &desc) {
    storage.emplace_back(new uint8_t[bytesOf(desc)]());
    return storage.back().get();
  };
  for (int64_t i = 0; i < fn.num_inputs; ++i)
    inputs.push_back(buffer(fn.inputs[i]));
  for (int64_t i = 0; i < fn.num_outputs; ++i)
    outputs.push_back(buffer(fn.outputs[i]));
  currentModel = &m;
  currentFunction = &fn;
  mxrt_instance_call_raw(instance, f, inputs.data(), outputs.data());
}

void use(const mxrt_model *model, const mxrt_model_desc &m) {
  mxrt_tensor_info info;
  int32_t index = 0;
  currentModel = &m; // for fuzzShapes
  (void)mxrt_model_name(model);
  int32_t numFunctions = mxrt_model_num_functions(model);
  for (int32_t f = -1; f <= numFunctions; ++f) {
    (void)mxrt_model_function_name(model, f);
    int32_t numInputs = mxrt_model_function_num_inputs(model, f);
    int32_t numOutputs = mxrt_model_function_num_outputs(model, f);
    for (int32_t i = -1; i <= numInputs; ++i)
      (void)mxrt_model_function_input_info(model, f, i, &info);
    for (int32_t i = -1; i <= numOutputs; ++i)
      (void)mxrt_model_function_output_info(model, f, i, &info);
  }
  for (int32_t i = -1; i <= mxrt_model_num_inputs(model); ++i)
    (void)mxrt_model_input_info(model, i, &info);
  for (int32_t i = -1; i <= mxrt_model_num_outputs(model); ++i)
    (void)mxrt_model_output_info(model, i, &info);
  for (int64_t i = 0; i < m.functions[0].num_inputs; ++i)
    (void)mxrt_model_find_input(model, m.functions[0].inputs[i].name, &index);
  for (int32_t i = -1; i <= mxrt_model_num_params(model); ++i)
    (void)mxrt_model_param_info(model, i, &info);
  mxrt_dim_info dim;
  for (int32_t i = -1; i <= mxrt_model_num_dims(model); ++i)
    (void)mxrt_model_dim_info(model, i, &dim);
  if (!smallEnough(m))
    return;
  mxrt_instance *instance = nullptr;
  if (mxrt_instance_create(model, nullptr, &instance) != MXRT_OK)
    return;
  for (int64_t i = 0; i < m.num_params; ++i) {
    const mxrt_tensor_desc &param = m.params[i];
    (void)mxrt_model_find_param(model, param.name, &index);
    std::vector<uint8_t> bytes(bytesOf(param));
    (void)mxrt_instance_read_param(instance, param.name, bytes.data(),
                                   bytes.size());
    if (m.flags & MXRT_MODEL_TRAINABLE)
      (void)mxrt_instance_write_param(instance, param.name, bytes.data(),
                                      bytes.size());
  }
  for (int32_t f = 0; f < numFunctions; ++f) {
    if (!m.functions[f].num_variants && !m.functions[f].shapes) {
      call(instance, m, f);
      continue;
    }
    for (int64_t rows : {int64_t(0), int64_t(1), int64_t(5), int64_t(11)})
      callRows(model, instance, m, f, rows);
  }
  mxrt_instance_release(instance);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  FuzzedDataProvider in(data, size);
  Tables tables;
  build(in, tables);
  mxrt_model *model = nullptr;
  if (mxrt_model_from_descriptor(&tables.model, &model) != MXRT_OK)
    return 0;
  use(model, tables.model);
  mxrt_model_release(model);
  return 0;
}
