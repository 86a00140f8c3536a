// SPDX-License-Identifier: Apache-2.0
//
// mxrun: run and time any model compiled by mxc, through the runtime's
// reflective API alone (mxrt_model_open), so that a compiled library can be
// tried without writing a program. Inputs come from .npy files or a seeded
// generator; outputs are printed and optionally written as .npy files.

#include "mxrt/model_abi.h"
#include "mxrt/mxrt.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include <sys/stat.h>

namespace {

const char usage[] =
    "usage: mxrun LIB [options]\n"
    "\n"
    "Runs a model compiled by mxc (lib<name>.so) once and prints its outputs.\n"
    "\n"
    "options:\n"
    "  --input NAME=FILE.npy  read input NAME from a .npy file (repeatable);\n"
    "                         inputs not given get seeded random values:\n"
    "                         uniform in [-1, 1) for floats, integers in\n"
    "                         [0, 10), 0 or 1 for bool; a bfloat16 .npy file\n"
    "                         holds [('bfloat16', '<u2')], the raw bits\n"
    "  --dim NAME=VALUE       the extent of dynamic dimension NAME in the\n"
    "                         inputs generated (repeatable); inputs read\n"
    "                         from files give their own, and a dimension\n"
    "                         neither gives is its minimum (at least 1);\n"
    "                         derived dimensions (outputs' extents) follow\n"
    "                         from the others\n"
    "  --output-dir DIR       write each output to DIR/<name>.npy (creates "
    "DIR)\n"
    "  --bench N              after the warm-up runs, time N runs and print\n"
    "                         the median and minimum latency\n"
    "  --warmup W             untimed runs before --bench's timed ones\n"
    "                         (default 3)\n"
    "  --threads T            worker threads per instance (0: default)\n"
    "  --seed S               seed for random inputs (default 0)\n"
    "  --function NAME        run this function of the library (default\n"
    "                         forward; training libraries also have grad and\n"
    "                         train_step)\n"
    "  --generate N           greedy decoding with a key/value cache: the\n"
    "                         prompt (--input ids=..., else token 0) after an\n"
    "                         empty cache, then N tokens one at a time, each\n"
    "                         step's present... outputs fed back as its\n"
    "                         past... inputs (or, compiled with --kv-cache=\n"
    "                         in-place, the caches appended to in place);\n"
    "                         prints the tokens and tokens/s\n"
    "  --steps N              call the function N times (default 1), e.g. N\n"
    "                         optimizer steps; outputs are the last call's\n"
    "  --save-params FILE     afterwards, write the instance's parameters as "
    "an\n"
    "                         MXNet .params file\n"
    "  --json                 print one JSON object instead of text\n"
    "  --help                 print this help\n";

/// Thrown for every user-facing error; main() prints it and exits 1.
struct Error {
  std::string message;
};

[[noreturn]] void fail(const std::string &message) { throw Error{message}; }

[[noreturn]] void failStatus(const std::string &what, mxrt_status status) {
  std::string message = what + ": " + mxrt_last_error();
  if (!*mxrt_last_error())
    message += mxrt_status_string(status);
  fail(message);
}

struct TensorDeleter {
  void operator()(mxrt_tensor *tensor) const { mxrt_tensor_release(tensor); }
};
using TensorPtr = std::unique_ptr<mxrt_tensor, TensorDeleter>;

struct Options {
  std::string library;
  std::vector<std::pair<std::string, std::string>> inputs; // name, file
  std::vector<std::pair<std::string, int64_t>> dims;       // name, value
  std::string outputDir;
  bool bench = false;
  int64_t benchRuns = 0;
  int64_t warmupRuns = 3;
  int32_t threads = 0;
  uint64_t seed = 0;
  std::string function = "forward";
  int64_t steps = 1;
  std::string saveParams;
  int64_t generate = 0; // --generate N: tokens, 0 when not generating
  bool json = false;
  bool help = false;
};

int64_t parseInt(const std::string &flag, const std::string &text, int64_t min,
                 int64_t max) {
  errno = 0;
  char *end = nullptr;
  long long value = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end || errno == ERANGE || value < min || value > max)
    fail(flag + " expects an integer from " + std::to_string(min) + " to " +
         std::to_string(max) + ", got '" + text + "'");
  return value;
}

Options parseArgs(int argc, char **argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    // Accept both `--flag VALUE` and `--flag=VALUE`.
    std::string flag = arg, value;
    bool hasInlineValue = false;
    if (arg.rfind("--", 0) == 0) {
      size_t eq = arg.find('=');
      if (eq != std::string::npos) {
        flag = arg.substr(0, eq);
        value = arg.substr(eq + 1);
        hasInlineValue = true;
      }
    }
    auto takeValue = [&]() -> std::string {
      if (hasInlineValue)
        return value;
      if (i + 1 >= argc)
        fail(flag + " expects a value");
      return argv[++i];
    };
    if (flag == "--help" || flag == "-h") {
      options.help = true;
    } else if (flag == "--json" && !hasInlineValue) {
      options.json = true;
    } else if (flag == "--input") {
      std::string spec = takeValue();
      size_t eq = spec.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size())
        fail("--input expects NAME=FILE.npy, got '" + spec + "'");
      std::string name = spec.substr(0, eq);
      for (const auto &input : options.inputs)
        if (input.first == name)
          fail("input '" + name + "' is given twice");
      options.inputs.emplace_back(name, spec.substr(eq + 1));
    } else if (flag == "--dim") {
      std::string spec = takeValue();
      size_t eq = spec.find('=');
      if (eq == std::string::npos || eq == 0)
        fail("--dim expects NAME=VALUE, got '" + spec + "'");
      std::string name = spec.substr(0, eq);
      for (const auto &dim : options.dims)
        if (dim.first == name)
          fail("dimension '" + name + "' is given twice");
      options.dims.emplace_back(
          name, parseInt("--dim " + name, spec.substr(eq + 1), 0, INT64_MAX));
    } else if (flag == "--output-dir") {
      options.outputDir = takeValue();
      if (options.outputDir.empty())
        fail("--output-dir expects a directory");
    } else if (flag == "--bench") {
      options.bench = true;
      options.benchRuns = parseInt(flag, takeValue(), 1, 100000000);
    } else if (flag == "--warmup") {
      options.warmupRuns = parseInt(flag, takeValue(), 0, 100000000);
    } else if (flag == "--threads") {
      options.threads =
          static_cast<int32_t>(parseInt(flag, takeValue(), 0, 4096));
    } else if (flag == "--function") {
      options.function = takeValue();
    } else if (flag == "--steps") {
      options.steps = parseInt(flag, takeValue(), 1, int64_t(1) << 40);
    } else if (flag == "--generate") {
      options.generate = parseInt(flag, takeValue(), 1, 1 << 20);
    } else if (flag == "--save-params") {
      options.saveParams = takeValue();
      if (options.saveParams.empty())
        fail("--save-params expects a file");
    } else if (flag == "--seed") {
      std::string text = takeValue();
      errno = 0;
      char *end = nullptr;
      unsigned long long seed = std::strtoull(text.c_str(), &end, 10);
      if (text.empty() || text[0] == '-' || *end || errno == ERANGE)
        fail("--seed expects a non-negative integer, got '" + text + "'");
      options.seed = seed;
    } else if (arg.size() > 1 && arg[0] == '-') {
      fail("unknown option '" + arg + "' (see --help)");
    } else if (options.library.empty()) {
      options.library = arg;
    } else {
      fail("unexpected argument '" + arg + "': only one model library");
    }
  }
  if (!options.help && options.library.empty())
    fail("no model library given (see --help)");
  if (options.generate &&
      (options.bench || options.steps != 1 || !options.saveParams.empty() ||
       options.json || !options.outputDir.empty()))
    fail("--generate runs alone: not with --bench, --steps, --save-params, "
         "--json or --output-dir");
  return options;
}

/// splitmix64: small, fast and good enough for test inputs; fixed here so
/// that a seed means the same values on every machine.
struct Random {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
};

/// IEEE half bits of `value`, which must be 0 or a normal half.
uint16_t toHalf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000);
  if ((bits & 0x7FFFFFFF) == 0)
    return sign;
  int exponent = static_cast<int>((bits >> 23) & 0xFF) - 127 + 15;
  return static_cast<uint16_t>(sign | (exponent << 10) |
                               ((bits >> 13) & 0x3FF));
}

float fromHalf(uint16_t half) {
  uint32_t sign = uint32_t(half & 0x8000) << 16;
  uint32_t exponent = (half >> 10) & 0x1F, mantissa = half & 0x3FF;
  float magnitude;
  if (exponent == 0)
    magnitude = std::ldexp(static_cast<float>(mantissa), -24);
  else if (exponent == 31)
    magnitude = mantissa ? NAN : INFINITY;
  else
    magnitude = std::ldexp(static_cast<float>(mantissa | 0x400),
                           static_cast<int>(exponent) - 25);
  uint32_t bits;
  std::memcpy(&bits, &magnitude, sizeof(bits));
  bits |= sign;
  std::memcpy(&magnitude, &bits, sizeof(bits));
  return magnitude;
}

/// bfloat16 is the upper half of a float's bits.
float fromBFloat16(uint16_t bits) {
  uint32_t wide = uint32_t(bits) << 16;
  float value;
  std::memcpy(&value, &wide, sizeof(value));
  return value;
}

/// An integer dtype and its C type, as withIntegerType lists them.
template <typename T> struct IntegerDtype {
  mxrt_dtype dtype;
};

template <typename Fn, typename... T>
bool withIntegerTypeOf(mxrt_dtype dtype, Fn &fn, IntegerDtype<T>... types) {
  return ((dtype == types.dtype && (fn(T()), true)) || ...);
}

/// Calls `fn(T())` with T the C type of `dtype` and returns true when `dtype`
/// is an integer type (not bool, which is drawn and printed apart); returns
/// false for any other dtype.
template <typename Fn> bool withIntegerType(mxrt_dtype dtype, Fn &&fn) {
  return withIntegerTypeOf(
      dtype, fn, IntegerDtype<uint8_t>{MXRT_U8}, IntegerDtype<int8_t>{MXRT_I8},
      IntegerDtype<int16_t>{MXRT_I16}, IntegerDtype<uint16_t>{MXRT_U16},
      IntegerDtype<int32_t>{MXRT_I32}, IntegerDtype<uint32_t>{MXRT_U32},
      IntegerDtype<int64_t>{MXRT_I64}, IntegerDtype<uint64_t>{MXRT_U64});
}

/// Fills `tensor` deterministically from (seed, input index), so that one
/// input's values do not depend on which other inputs came from files.
void fillRandom(mxrt_tensor *tensor, uint64_t seed, int32_t index) {
  Random random{seed * 0x100000001B3ull + static_cast<uint64_t>(index) + 1};
  int64_t count = mxrt_tensor_num_elements(tensor);
  void *data = mxrt_tensor_data(tensor);
  mxrt_dtype dtype = mxrt_tensor_dtype(tensor);
  if (withIntegerType(dtype, [&](auto zero) {
        using T = decltype(zero);
        for (int64_t i = 0; i < count; ++i)
          static_cast<T *>(data)[i] = static_cast<T>(random.next() % 10);
      }))
    return;
  for (int64_t i = 0; i < count; ++i) {
    uint64_t r = random.next();
    switch (dtype) {
    case MXRT_F32: // 24 random bits: exact in float.
      static_cast<float *>(data)[i] =
          static_cast<float>(r >> 40) * 0x1p-23f - 1.0f;
      break;
    case MXRT_F64:
      static_cast<double *>(data)[i] =
          static_cast<double>(r >> 11) * 0x1p-52 - 1.0;
      break;
    case MXRT_F16: // Multiples of 2^-10: exact in half.
      static_cast<uint16_t *>(data)[i] =
          toHalf(static_cast<float>(r >> 53) * 0x1p-10f - 1.0f);
      break;
    case MXRT_BF16: { // Multiples of 2^-7: exact in bfloat16.
      float value = static_cast<float>(r >> 56) * 0x1p-7f - 1.0f;
      uint32_t bits;
      std::memcpy(&bits, &value, sizeof(bits));
      static_cast<uint16_t *>(data)[i] = static_cast<uint16_t>(bits >> 16);
      break;
    }
    case MXRT_BOOL:
      static_cast<uint8_t *>(data)[i] = static_cast<uint8_t>(r & 1);
      break;
    case MXRT_STRING: // Numbers as text, which casts to numbers read.
      mxrt_tensor_set_string(tensor, i, std::to_string(r % 10).c_str());
      break;
    default: // The integers, filled above.
      break;
    }
  }
}

/// "2x3", or "scalar"; with `dims` (the model's), a dynamic extent (below 0)
/// shows as its dimension's name ("Nx3").
std::string shapeString(int32_t ndim, const int64_t *shape,
                        const mxrt_dim_info *dims = nullptr) {
  if (ndim == 0)
    return "scalar";
  std::string result;
  for (int32_t i = 0; i < ndim; ++i)
    result +=
        (i ? "x" : "") + (shape[i] < 0 && dims
                              ? std::string(dims[MXRT_DIM_INDEX(shape[i])].name)
                              : std::to_string(shape[i]));
  return result;
}

bool isDynamic(const mxrt_tensor_info &info) {
  return std::any_of(info.shape, info.shape + info.ndim,
                     [](int64_t extent) { return extent < 0; });
}

std::string jsonString(const std::string &text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof(escaped), "\\u%04x", c);
      out += escaped;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

std::string jsonShape(int32_t ndim, const int64_t *shape) {
  std::string out = "[";
  for (int32_t i = 0; i < ndim; ++i)
    out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}

/// Short for people; exact (round-trippable) for JSON consumers.
std::string formatDouble(double value, bool json, int exactDigits) {
  if (json && !std::isfinite(value))
    return "null";
  char text[32];
  std::snprintf(text, sizeof(text), "%.*g", json ? exactDigits : 6, value);
  return text;
}

/// Element `i` of `tensor` as text (JSON-safe when `json`).
std::string formatElement(mxrt_tensor *tensor, int64_t i, bool json) {
  const void *data = mxrt_tensor_data(tensor);
  mxrt_dtype dtype = mxrt_tensor_dtype(tensor);
  std::string text;
  if (withIntegerType(dtype, [&](auto zero) {
        using T = decltype(zero);
        text = std::to_string(static_cast<const T *>(data)[i]);
      }))
    return text;
  switch (dtype) {
  case MXRT_F32:
    return formatDouble(static_cast<const float *>(data)[i], json, 9);
  case MXRT_F64:
    return formatDouble(static_cast<const double *>(data)[i], json, 17);
  case MXRT_F16:
    return formatDouble(fromHalf(static_cast<const uint16_t *>(data)[i]), json,
                        5);
  case MXRT_BF16:
    return formatDouble(fromBFloat16(static_cast<const uint16_t *>(data)[i]),
                        json, 4);
  case MXRT_BOOL:
    return static_cast<const uint8_t *>(data)[i] ? "true" : "false";
  case MXRT_STRING:
    text = mxrt_tensor_get_string(tensor, i);
    return json ? jsonString(text) : "'" + text + "'";
  default: // The integers, formatted above.
    break;
  }
  return "?";
}

constexpr int64_t maxPrintedElements = 16;

std::string formatValues(mxrt_tensor *tensor, bool json) {
  std::string out = "[";
  for (int64_t i = 0; i < mxrt_tensor_num_elements(tensor); ++i)
    out += (i ? ", " : "") + formatElement(tensor, i, json);
  return out + "]";
}

/// Creates `path` and its parents, like mkdir -p.
void makeDirectories(const std::string &path) {
  for (size_t pos = 1; pos <= path.size(); ++pos) {
    if (pos != path.size() && path[pos] != '/')
      continue;
    std::string prefix = path.substr(0, pos);
    if (mkdir(prefix.c_str(), 0777) != 0 && errno != EEXIST)
      fail("cannot create directory '" + prefix + "': " + std::strerror(errno));
  }
  struct stat info;
  if (stat(path.c_str(), &info) != 0 || !S_ISDIR(info.st_mode))
    fail("'" + path + "' is not a directory");
}

/// Output names may hold '/' or ':' (ONNX); keep file names tame.
std::string fileNameFor(const std::string &name) {
  std::string out = name;
  for (char &c : out)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' &&
        c != '.')
      c = '_';
  if (out.empty() || out[0] == '.')
    out = "_" + out;
  return out + ".npy";
}

struct Slot {
  mxrt_tensor_info info;
  TensorPtr tensor;
  std::string file; // Input source or output file; empty if none.
};

/// The shape of `slot`'s tensor, after the model's with the names of its
/// dynamic dimensions where it has some ("Nx3=5x3").
std::string slotShape(const Slot &slot, const mxrt_dim_info *dims) {
  std::string shape = shapeString(mxrt_tensor_ndim(slot.tensor.get()),
                                  mxrt_tensor_shape(slot.tensor.get()));
  if (!isDynamic(slot.info))
    return shape;
  return shapeString(slot.info.ndim, slot.info.shape, dims) + "=" + shape;
}

/// The JSON fields of `slot`'s shape: its tensor's, and where the model's
/// has dynamic dimensions, the model's with their names.
std::string jsonSlotShape(const Slot &slot, const mxrt_dim_info *dims) {
  std::string out =
      "\"shape\": " + jsonShape(mxrt_tensor_ndim(slot.tensor.get()),
                                mxrt_tensor_shape(slot.tensor.get()));
  if (!isDynamic(slot.info))
    return out;
  out += ", \"model_shape\": [";
  for (int32_t i = 0; i < slot.info.ndim; ++i) {
    int64_t extent = slot.info.shape[i];
    out += (i ? ", " : "") +
           (extent < 0 ? jsonString(dims[MXRT_DIM_INDEX(extent)].name)
                       : std::to_string(extent));
  }
  return out + "]";
}

/// The cache output that input `name` receives on the next step: the name
/// with its leading "past_key_values" or "past" as "present"
/// (past_key_0 -> present_key_0, past_key_values.0.key -> present.0.key);
/// empty when it names no cache.
std::string presentName(const std::string &name) {
  for (const char *prefix : {"past_key_values", "past"})
    if (name.rfind(prefix, 0) == 0)
      return "present" + name.substr(std::strlen(prefix));
  return "";
}

/// --generate N: greedy decoding with a key/value cache. The function's
/// inputs are the token ids (named ids or input_ids, else the first; shape
/// (1, seq), int64, int32 or float32), optionally the positions (positions
/// or position_ids, the same form) and the caches (past...), each of which
/// the output of the same name with "present" for "past" feeds on the next
/// step (compiled with --kv-cache=in-place: caches that each step appends
/// to in place, zeros at first, and their filled length); the logits are the
/// output named logits, else the first, (1, seq, vocabulary). The first step
/// reads the prompt (--input of the ids, else token 0) after an empty cache;
/// each later step the one token the last step chose (the largest logit).
/// Prints the tokens and the time of the prompt's step and of the N steps after
/// it.
int generateTokens(const Options &options, mxrt_model *model, int32_t function,
                   const std::vector<Slot> &inputs,
                   const std::vector<Slot> &outputs,
                   const std::vector<mxrt_dim_info> &dims) {
  auto find = [](const std::vector<Slot> &slots,
                 std::initializer_list<const char *> names) -> int32_t {
    for (const char *name : names)
      for (size_t i = 0; i < slots.size(); ++i)
        if (slots[i].info.name == std::string(name))
          return int32_t(i);
    return -1;
  };
  int32_t ids = std::max(find(inputs, {"ids", "input_ids"}), 0);
  int32_t positions = find(inputs, {"positions", "position_ids"});
  int32_t logits = std::max(find(outputs, {"logits"}), 0);
  std::vector<std::pair<int32_t, int32_t>> caches; // input, output
  // A library compiled with --kv-cache=in-place: caches of a fixed capacity
  // that each step appends to, and their filled length as an input.
  std::vector<int32_t> inPlace;
  int32_t length = -1;
  for (size_t i = 0; i < inputs.size(); ++i) {
    int64_t flags =
        mxrt_model_function_input_flags(model, function, int32_t(i));
    if (flags & MXRT_TENSOR_CACHE)
      inPlace.push_back(int32_t(i));
    if (flags & MXRT_TENSOR_LENGTH)
      length = int32_t(i);
  }
  for (size_t i = 0; i < inputs.size() && inPlace.empty(); ++i) {
    std::string present = presentName(inputs[i].info.name);
    if (present.empty())
      continue;
    int32_t out = find(outputs, {present.c_str()});
    if (out < 0)
      fail("--generate: cache input '" + std::string(inputs[i].info.name) +
           "' has no output '" + present + "' to take the next step's from");
    caches.push_back({int32_t(i), out});
  }
  if (caches.empty() && inPlace.empty())
    fail("--generate: the function has no cache inputs (named past..., or "
         "compiled with --kv-cache=in-place)");
  for (const auto &[in, out] : caches)
    if (in == ids || in == positions)
      fail("--generate: input '" + std::string(inputs[in].info.name) +
           "' cannot be both a cache and the ids or positions");
  const mxrt_tensor_info &logitsInfo = outputs[logits].info;
  if (logitsInfo.dtype != MXRT_F32 || logitsInfo.ndim < 2)
    fail("--generate: the logits output '" + std::string(logitsInfo.name) +
         "' is not float32 of rank 2 or more");
  for (int32_t slot : {ids, positions}) {
    if (slot < 0)
      continue;
    const mxrt_tensor_info &info = inputs[slot].info;
    if (info.ndim != 2 || info.shape[0] != 1 ||
        (info.dtype != MXRT_I64 && info.dtype != MXRT_I32 &&
         info.dtype != MXRT_F32))
      fail("--generate: input '" + std::string(info.name) +
           "' is not (1, seq) int64, int32 or float32");
  }
  // The prompt: the ids read (as int64 values), else one token 0.
  std::vector<int64_t> prompt = {0};
  if (const mxrt_tensor *given = inputs[ids].tensor.get()) {
    prompt.clear();
    for (int64_t i = 0; i < mxrt_tensor_num_elements(given); ++i) {
      const void *data = mxrt_tensor_data(const_cast<mxrt_tensor *>(given));
      mxrt_dtype dtype = mxrt_tensor_dtype(given);
      prompt.push_back(dtype == MXRT_I64 ? static_cast<const int64_t *>(data)[i]
                       : dtype == MXRT_I32
                           ? static_cast<const int32_t *>(data)[i]
                           : int64_t(static_cast<const float *>(data)[i]));
    }
  }
  // A (1, n) tensor of `values` in the input's element type.
  auto row = [&](int32_t slot, const std::vector<int64_t> &values) {
    int64_t shape[2] = {1, int64_t(values.size())};
    mxrt_tensor *tensor = nullptr;
    mxrt_dtype dtype = inputs[slot].info.dtype;
    if (mxrt_status status = mxrt_tensor_create(dtype, 2, shape, &tensor))
      failStatus("cannot allocate input '" +
                     std::string(inputs[slot].info.name) + "'",
                 status);
    void *data = mxrt_tensor_data(tensor);
    for (size_t i = 0; i < values.size(); ++i) {
      if (dtype == MXRT_I64)
        static_cast<int64_t *>(data)[i] = values[i];
      else if (dtype == MXRT_I32)
        static_cast<int32_t *>(data)[i] = int32_t(values[i]);
      else
        static_cast<float *>(data)[i] = float(values[i]);
    }
    return TensorPtr(tensor);
  };
  // Every other input (none, as a rule) keeps what was read or generated;
  // the caches start empty: extent 0 on their dynamic axes, or (in place)
  // zeros of their capacity, filled to 0.
  std::vector<TensorPtr> current(inputs.size());
  for (int32_t in : inPlace) {
    const mxrt_tensor_info &info = inputs[in].info;
    mxrt_tensor *tensor = nullptr;
    if (mxrt_status status =
            mxrt_tensor_create(info.dtype, info.ndim, info.shape, &tensor))
      failStatus("cannot allocate cache '" + std::string(info.name) + "'",
                 status);
    current[in].reset(tensor);
  }
  if (!inPlace.empty() && length < 0)
    fail("--generate: the caches have no length input");
  for (const auto &[in, out] : caches) {
    const mxrt_tensor_info &info = inputs[in].info;
    int64_t shape[MXRT_MAX_DIMS];
    for (int32_t a = 0; a < info.ndim; ++a)
      shape[a] = info.shape[a] < 0 ? 0 : info.shape[a];
    mxrt_tensor *tensor = nullptr;
    if (mxrt_status status =
            mxrt_tensor_create(info.dtype, info.ndim, shape, &tensor))
      failStatus("cannot allocate cache '" + std::string(info.name) + "'",
                 status);
    current[in].reset(tensor);
  }

  mxrt_instance_options instanceOptions;
  mxrt_instance_options_init(&instanceOptions);
  instanceOptions.num_threads = options.threads;
  mxrt_instance *rawInstance = nullptr;
  if (mxrt_status status =
          mxrt_instance_create(model, &instanceOptions, &rawInstance))
    failStatus("cannot create an instance", status);
  std::unique_ptr<mxrt_instance, void (*)(mxrt_instance *)> instance(
      rawInstance, mxrt_instance_release);

  std::vector<int64_t> tokens, next = prompt;
  int64_t position = 0;
  double promptMs = 0, stepsMs = 0;
  for (int64_t step = 0; step <= options.generate; ++step) {
    current[ids] = row(ids, next);
    if (positions >= 0) {
      std::vector<int64_t> at(next.size());
      for (size_t i = 0; i < at.size(); ++i)
        at[i] = position + int64_t(i);
      current[positions] = row(positions, at);
    }
    if (length >= 0) {
      mxrt_tensor *filled = nullptr;
      if (mxrt_status status =
              mxrt_tensor_create(MXRT_I64, 0, nullptr, &filled))
        failStatus("cannot allocate the caches' length", status);
      *static_cast<int64_t *>(mxrt_tensor_data(filled)) = position;
      current[length].reset(filled);
    }
    std::vector<mxrt_tensor *> in;
    for (size_t i = 0; i < inputs.size(); ++i)
      in.push_back(current[i] ? current[i].get() : inputs[i].tensor.get());
    // The outputs' extents follow from this step's inputs.
    std::vector<int64_t> values(dims.size(), -1);
    if (mxrt_status status = mxrt_model_bind_dims(
            model, function, in.data(), int32_t(in.size()), values.data()))
      failStatus("--generate: step " + std::to_string(step), status);
    std::vector<TensorPtr> out(outputs.size());
    std::vector<mxrt_tensor *> outRaw;
    for (size_t i = 0; i < outputs.size(); ++i) {
      int64_t shape[MXRT_MAX_DIMS];
      mxrt_resolve_shape(&outputs[i].info, values.data(), shape);
      mxrt_tensor *tensor = nullptr;
      if (mxrt_status status = mxrt_tensor_create(
              outputs[i].info.dtype, outputs[i].info.ndim, shape, &tensor))
        failStatus("cannot allocate output '" +
                       std::string(outputs[i].info.name) + "'",
                   status);
      out[i].reset(tensor);
      outRaw.push_back(tensor);
    }
    auto start = std::chrono::steady_clock::now();
    if (mxrt_status status = mxrt_instance_call(
            instance.get(), function, in.data(), int32_t(in.size()),
            outRaw.data(), int32_t(outRaw.size())))
      failStatus("--generate: step " + std::to_string(step), status);
    double ms = std::chrono::duration<double, std::milli>(
                    std::chrono::steady_clock::now() - start)
                    .count();
    (step ? stepsMs : promptMs) += ms;
    // The next token: the largest logit of the last position.
    const mxrt_tensor *l = out[logits].get();
    int64_t vocabulary = mxrt_tensor_shape(l)[mxrt_tensor_ndim(l) - 1];
    const float *last = static_cast<const float *>(
                            mxrt_tensor_data(const_cast<mxrt_tensor *>(l))) +
                        mxrt_tensor_num_elements(l) - vocabulary;
    int64_t token = std::max_element(last, last + vocabulary) - last;
    position += int64_t(next.size());
    next = {token};
    if (step < options.generate)
      tokens.push_back(token);
    for (const auto &[i, o] : caches)
      current[i] = std::move(out[o]);
  }
  std::printf("prompt %zu tokens: %.3f ms\n", prompt.size(), promptMs);
  std::string list;
  for (int64_t token : tokens)
    list += (list.empty() ? "" : " ") + std::to_string(token);
  std::printf("tokens %s\n", list.c_str());
  std::printf("generated %" PRId64 " tokens in %.3f ms: %.2f tokens/s, "
              "%.3f ms per token\n",
              options.generate, stepsMs, options.generate * 1e3 / stepsMs,
              stepsMs / options.generate);
  return 0;
}

int runMain(int argc, char **argv) {
  Options options = parseArgs(argc, argv);
  if (options.help) {
    std::fputs(usage, stdout);
    return 0;
  }

  mxrt_model *rawModel = nullptr;
  if (mxrt_status status = mxrt_model_open(options.library.c_str(), &rawModel))
    failStatus("cannot load model", status);
  std::unique_ptr<mxrt_model, void (*)(mxrt_model *)> model(rawModel,
                                                            mxrt_model_release);

  int32_t function = -1;
  if (mxrt_model_find_function(model.get(), options.function.c_str(),
                               &function) != MXRT_OK) {
    std::string valid;
    for (int32_t f = 0; f < mxrt_model_num_functions(model.get()); ++f)
      valid += (f ? ", " : "") +
               std::string(mxrt_model_function_name(model.get(), f));
    fail("model '" + std::string(mxrt_model_name(model.get())) +
         "' has no function '" + options.function + "' (functions: " + valid +
         ")");
  }
  int32_t numInputs = mxrt_model_function_num_inputs(model.get(), function);
  int32_t numOutputs = mxrt_model_function_num_outputs(model.get(), function);
  std::vector<Slot> inputs(numInputs), outputs(numOutputs);
  for (int32_t i = 0; i < numInputs; ++i)
    if (mxrt_status status = mxrt_model_function_input_info(
            model.get(), function, i, &inputs[i].info))
      failStatus("cannot read the model's inputs", status);
  for (int32_t i = 0; i < numOutputs; ++i)
    if (mxrt_status status = mxrt_model_function_output_info(
            model.get(), function, i, &outputs[i].info))
      failStatus("cannot read the model's outputs", status);
  std::vector<mxrt_dim_info> dims(mxrt_model_num_dims(model.get()));
  for (int32_t d = 0; d < int32_t(dims.size()); ++d)
    if (mxrt_status status = mxrt_model_dim_info(model.get(), d, &dims[d]))
      failStatus("cannot read the model's dimensions", status);
  std::vector<int64_t> dimFlags(dims.size(), -1); // --dim's values
  for (const auto &flag : options.dims) {
    auto dim = std::find_if(dims.begin(), dims.end(), [&](const auto &dim) {
      return flag.first == dim.name;
    });
    if (dim == dims.end()) {
      std::string valid;
      for (const mxrt_dim_info &dim : dims)
        valid += (valid.empty() ? "" : ", ") + std::string(dim.name);
      fail("model '" + std::string(mxrt_model_name(model.get())) +
           "' has no dimension '" + flag.first +
           "' (dimensions: " + (valid.empty() ? "none" : valid) + ")");
    }
    if (dim->derived)
      fail("--dim " + flag.first + "=" + std::to_string(flag.second) +
           ": dimension '" + flag.first +
           "' is derived (an output's extent, computed from the other "
           "dimensions); it cannot be set");
    dimFlags[dim - dims.begin()] = flag.second;
  }

  for (const auto &[name, file] : options.inputs) {
    int32_t index = -1;
    for (int32_t i = 0; i < numInputs; ++i)
      if (name == inputs[i].info.name)
        index = i;
    if (index < 0) {
      std::string valid;
      for (const Slot &input : inputs)
        valid += (valid.empty() ? "" : ", ") + std::string(input.info.name);
      fail("model '" + std::string(mxrt_model_name(model.get())) +
           "' has no input '" + name + "'" +
           (function ? " in function '" + options.function + "'" : "") +
           " (inputs: " + (valid.empty() ? "none" : valid) + ")");
    }
    mxrt_tensor *tensor = nullptr;
    if (mxrt_status status = mxrt_tensor_load_npy(file.c_str(), &tensor))
      failStatus("input '" + name + "'", status);
    inputs[index].tensor.reset(tensor);
    inputs[index].file = file;
    const mxrt_tensor_info &info = inputs[index].info;
    // Dynamic extents are mxrt_model_bind_dims's to check (below).
    bool same =
        mxrt_tensor_dtype(tensor) == info.dtype &&
        mxrt_tensor_ndim(tensor) == info.ndim &&
        std::equal(info.shape, info.shape + info.ndim,
                   mxrt_tensor_shape(tensor), [](int64_t model, int64_t given) {
                     return model < 0 || model == given;
                   });
    if (!same)
      fail("input '" + name + "' from '" + file + "': expected shape " +
           shapeString(info.ndim, info.shape, dims.data()) + " " +
           mxrt_dtype_name(info.dtype) + ", got " +
           shapeString(mxrt_tensor_ndim(tensor), mxrt_tensor_shape(tensor)) +
           " " + mxrt_dtype_name(mxrt_tensor_dtype(tensor)));
  }
  if (options.generate)
    return generateTokens(options, model.get(), function, inputs, outputs,
                          dims);
  // The dynamic dimensions' values: from the inputs read, else --dim, else
  // the least the dimension takes, but not 0 (an empty run shows nothing);
  // the derived ones from those, once the inputs are made (below).
  std::vector<int64_t> dimValues(dims.size(), -1);
  if (!dims.empty()) {
    std::vector<mxrt_tensor *> read; // NULL for the inputs generated
    for (Slot &input : inputs)
      read.push_back(input.tensor.get());
    if (mxrt_status status = mxrt_model_bind_dims(
            model.get(), function, read.data(), numInputs, dimValues.data()))
      failStatus("bad input shapes", status);
  }
  for (size_t d = 0; d < dims.size(); ++d) {
    const mxrt_dim_info &dim = dims[d];
    if (dim.derived)
      continue;
    std::string flag =
        "--dim " + std::string(dim.name) + "=" + std::to_string(dimFlags[d]);
    if (dimFlags[d] >= 0 && dimValues[d] >= 0 && dimFlags[d] != dimValues[d])
      fail(flag + ", but the inputs read give " + dim.name + " = " +
           std::to_string(dimValues[d]));
    if (dimFlags[d] >= 0 && dimFlags[d] < dim.min)
      fail(flag + " is below the dimension's minimum " +
           std::to_string(dim.min));
    if (dimFlags[d] >= 0 && dim.max >= 0 && dimFlags[d] > dim.max)
      fail(flag + " is above the dimension's bound " + std::to_string(dim.max));
    if (dimValues[d] < 0)
      dimValues[d] =
          dimFlags[d] >= 0 ? dimFlags[d] : std::max<int64_t>(dim.min, 1);
    if (dim.max >= 0)
      dimValues[d] = std::min(dimValues[d], dim.max);
  }
  auto create = [&](const mxrt_tensor_info &info, const char *kind) {
    mxrt_tensor *tensor = nullptr;
    int64_t shape[MXRT_MAX_DIMS];
    mxrt_resolve_shape(&info, dimValues.data(), shape);
    if (mxrt_status status =
            mxrt_tensor_create(info.dtype, info.ndim, shape, &tensor))
      failStatus(std::string("cannot allocate ") + kind + " '" + info.name +
                     "'",
                 status);
    return TensorPtr(tensor);
  };
  for (int32_t i = 0; i < numInputs; ++i) {
    if (inputs[i].tensor)
      continue;
    inputs[i].tensor = create(inputs[i].info, "input");
    fillRandom(inputs[i].tensor.get(), options.seed, i);
  }
  // The outputs' extents: the derived dimensions follow from all the inputs
  // (-1 for those the function does not have).
  if (std::any_of(dims.begin(), dims.end(),
                  [](const mxrt_dim_info &dim) { return dim.derived; })) {
    std::vector<mxrt_tensor *> all;
    for (Slot &input : inputs)
      all.push_back(input.tensor.get());
    std::vector<int64_t> bound(dims.size(), -1);
    if (mxrt_status status = mxrt_model_bind_dims(
            model.get(), function, all.data(), numInputs, bound.data()))
      failStatus("bad input shapes", status);
    for (size_t d = 0; d < dims.size(); ++d)
      if (dims[d].derived)
        dimValues[d] = bound[d];
  }
  for (Slot &output : outputs)
    output.tensor = create(output.info, "output");

  mxrt_instance_options instanceOptions;
  mxrt_instance_options_init(&instanceOptions);
  instanceOptions.num_threads = options.threads;
  mxrt_instance *rawInstance = nullptr;
  if (mxrt_status status =
          mxrt_instance_create(model.get(), &instanceOptions, &rawInstance))
    failStatus("cannot create an instance", status);
  std::unique_ptr<mxrt_instance, void (*)(mxrt_instance *)> instance(
      rawInstance, mxrt_instance_release);

  std::vector<mxrt_tensor *> inputTensors, outputTensors;
  for (Slot &input : inputs)
    inputTensors.push_back(input.tensor.get());
  for (Slot &output : outputs)
    outputTensors.push_back(output.tensor.get());
  auto runOnce = [&] {
    if (mxrt_status status =
            mxrt_instance_call(instance.get(), function, inputTensors.data(),
                               numInputs, outputTensors.data(), numOutputs))
      failStatus("run failed", status);
  };
  for (int64_t step = 0; step < options.steps; ++step)
    runOnce();
  // Counted dimensions: what the call found.
  if (std::any_of(dims.begin(), dims.end(),
                  [](const mxrt_dim_info &dim) { return dim.counted; })) {
    std::vector<int64_t> found(dims.size(), -1);
    if (mxrt_status status =
            mxrt_instance_last_dims(instance.get(), found.data()))
      failStatus("cannot read the counted dimensions", status);
    for (size_t d = 0; d < dims.size(); ++d)
      if (dims[d].counted)
        dimValues[d] = found[d];
  }
  if (!options.saveParams.empty())
    if (mxrt_status status = mxrt_instance_save_params(
            instance.get(), options.saveParams.c_str()))
      failStatus("cannot save the parameters", status);

  if (!options.outputDir.empty()) {
    makeDirectories(options.outputDir);
    for (Slot &output : outputs) {
      output.file = options.outputDir + "/" + fileNameFor(output.info.name);
      if (mxrt_status status =
              mxrt_tensor_save_npy(output.tensor.get(), output.file.c_str()))
        failStatus("cannot write output '" + std::string(output.info.name) +
                       "'",
                   status);
    }
  }

  double medianMs = 0, minMs = 0;
  if (options.bench) {
    for (int64_t warmup = 0; warmup < options.warmupRuns; ++warmup)
      runOnce();
    std::vector<double> times;
    times.reserve(options.benchRuns);
    for (int64_t run = 0; run < options.benchRuns; ++run) {
      auto start = std::chrono::steady_clock::now();
      runOnce();
      auto end = std::chrono::steady_clock::now();
      times.push_back(
          std::chrono::duration<double, std::milli>(end - start).count());
    }
    std::sort(times.begin(), times.end());
    size_t n = times.size();
    medianMs = n % 2 ? times[n / 2] : (times[n / 2 - 1] + times[n / 2]) / 2;
    minMs = times.front();
  }

  char number[64];
  if (options.json) {
    std::string out =
        "{\"model\": " + jsonString(mxrt_model_name(model.get())) +
        ", \"library\": " + jsonString(options.library);
    if (!dims.empty()) {
      out += ", \"dims\": [";
      for (size_t d = 0; d < dims.size(); ++d) {
        out += std::string(d ? ", " : "") +
               "{\"name\": " + jsonString(dims[d].name) + ", \"value\": " +
               (dimValues[d] < 0 ? "null" : std::to_string(dimValues[d]));
        if (dims[d].counted)
          out +=
              ", \"counted\": true, \"max\": " + std::to_string(dims[d].max) +
              "}";
        else if (dims[d].derived)
          out += ", \"derived\": true}";
        else
          out += ", \"min\": " + std::to_string(dims[d].min) + ", \"max\": " +
                 (dims[d].max < 0 ? "null" : std::to_string(dims[d].max)) + "}";
      }
      out += "]";
    }
    out += ", \"inputs\": [";
    for (size_t i = 0; i < inputs.size(); ++i) {
      const Slot &input = inputs[i];
      out += std::string(i ? ", " : "") +
             "{\"name\": " + jsonString(input.info.name) +
             ", \"dtype\": " + jsonString(mxrt_dtype_name(input.info.dtype)) +
             ", " + jsonSlotShape(input, dims.data()) + ", \"source\": " +
             (input.file.empty() ? std::string("\"random\"")
                                 : jsonString(input.file)) +
             "}";
    }
    out += "], \"outputs\": [";
    for (size_t i = 0; i < outputs.size(); ++i) {
      Slot &output = outputs[i];
      out += std::string(i ? ", " : "") +
             "{\"name\": " + jsonString(output.info.name) +
             ", \"dtype\": " + jsonString(mxrt_dtype_name(output.info.dtype)) +
             ", " + jsonSlotShape(output, dims.data());
      if (!output.file.empty())
        out += ", \"file\": " + jsonString(output.file);
      if (mxrt_tensor_num_elements(output.tensor.get()) <= maxPrintedElements)
        out += ", \"values\": " + formatValues(output.tensor.get(), true);
      out += "}";
    }
    out += "]";
    if (options.bench) {
      std::snprintf(number, sizeof(number), "%.6f, \"min_ms\": %.6f", medianMs,
                    minMs);
      out += ", \"bench\": {\"runs\": " + std::to_string(options.benchRuns) +
             ", \"median_ms\": " + number + "}";
    }
    out += "}\n";
    std::fputs(out.c_str(), stdout);
    return 0;
  }

  for (size_t d = 0; d < dims.size(); ++d) {
    if (dims[d].counted)
      std::printf("dim %s=%" PRId64 " (counted, at most %" PRId64 ")\n",
                  dims[d].name, dimValues[d], dims[d].max);
    else if (dims[d].derived && dimValues[d] < 0) // another function's
      std::printf("dim %s (derived)\n", dims[d].name);
    else if (dims[d].derived)
      std::printf("dim %s=%" PRId64 " (derived)\n", dims[d].name, dimValues[d]);
    else
      std::printf("dim %s=%" PRId64 " min=%" PRId64 " max=%s\n", dims[d].name,
                  dimValues[d], dims[d].min,
                  dims[d].max < 0 ? "none"
                                  : std::to_string(dims[d].max).c_str());
  }
  for (const Slot &input : inputs)
    std::printf("input %s %s %s %s\n", input.info.name,
                mxrt_dtype_name(input.info.dtype),
                slotShape(input, dims.data()).c_str(),
                input.file.empty()
                    ? ("random seed=" + std::to_string(options.seed)).c_str()
                    : input.file.c_str());
  for (Slot &output : outputs) {
    std::string line = std::string("output ") + output.info.name + " " +
                       mxrt_dtype_name(output.info.dtype) + " " +
                       slotShape(output, dims.data());
    if (mxrt_tensor_num_elements(output.tensor.get()) <= maxPrintedElements)
      line += " " + formatValues(output.tensor.get(), false);
    std::printf("%s\n", line.c_str());
  }
  if (options.bench)
    std::printf("latency_ms median=%.6f min=%.6f runs=%" PRId64 "\n", medianMs,
                minMs, options.benchRuns);
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  try {
    return runMain(argc, argv);
  } catch (const Error &error) {
    std::fprintf(stderr, "mxrun: error: %s\n", error.message.c_str());
  } catch (const std::bad_alloc &) {
    std::fprintf(stderr, "mxrun: error: out of memory\n");
  }
  return 1;
}
