// SPDX-License-Identifier: Apache-2.0
//
// String tensors: the per-call arena, the number <-> text conversions that
// compiled models call element by element (mxrt/kernels.h), and the string
// accessors of mxrt.h.
#include "internal.h"
#include "mxrt/kernels.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

namespace mxrt {
namespace {

constexpr size_t kBlockSize = 4096;

thread_local CallState *currentCall = nullptr;

/// Strings made outside any instance call (a model's entry called directly):
/// they live as long as the thread.
CallState &callState() {
  if (currentCall)
    return *currentCall;
  thread_local CallState orphan;
  return orphan;
}

void recordError(const std::string &message) {
  CallState &state = callState();
  if (state.error.empty())
    state.error = message;
}

bool equalsIgnoringCase(const char *a, size_t n, const char *b) {
  if (std::strlen(b) != n)
    return false;
  for (size_t i = 0; i < n; ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != b[i])
      return false;
  return true;
}

/// `text` without leading and trailing ASCII blanks.
std::pair<const char *, size_t> trimmed(const char *text) {
  if (!text)
    return {"", 0};
  size_t n = std::strlen(text);
  while (n && std::isspace(static_cast<unsigned char>(*text)))
    ++text, --n;
  while (n && std::isspace(static_cast<unsigned char>(text[n - 1])))
    --n;
  return {text, n};
}

/// Parses all of text[0, n) as a float of `bits` (32: float, else double),
/// accepting a leading '+' and ONNX's special values (case-insensitive
/// "NaN", "INF", "+INF", "-INF"; from_chars also takes "infinity").
bool parseFloat(const char *text, size_t n, int32_t bits, double *out) {
  if (n && text[0] == '+' && !(n > 1 && (text[1] == '-' || text[1] == '+')))
    ++text, --n;
  if (equalsIgnoringCase(text, n, "nan")) {
    *out = std::numeric_limits<double>::quiet_NaN();
    return true;
  }
  const char *end = text + n;
  std::from_chars_result r;
  if (bits == 32) {
    float f = 0;
    r = std::from_chars(text, end, f);
    *out = f;
  } else {
    r = std::from_chars(text, end, *out);
  }
  if (r.ec == std::errc::result_out_of_range && r.ptr == end) {
    // Too large or too small for the type: what the nearest value is.
    double d = std::strtod(std::string(text, n).c_str(), nullptr);
    *out = bits == 32 ? static_cast<double>(static_cast<float>(d)) : d;
    return true;
  }
  return r.ec == std::errc() && r.ptr == end && n > 0;
}

std::string quoted(const char *text) {
  std::string s = text ? text : "";
  if (s.size() > 64)
    s = s.substr(0, 61) + "...";
  return "'" + s + "'";
}

} // namespace

const char *StringArena::copy(const char *text, size_t size) {
  if (used + size + 1 > capacity) {
    size_t bytes = std::max(kBlockSize, size + 1);
    blocks.emplace_back(new char[bytes]);
    used = 0;
    capacity = bytes;
  }
  char *s = blocks.back().get() + used;
  std::memcpy(s, text, size);
  s[size] = '\0';
  used += size + 1;
  return s;
}

void StringArena::reset() {
  if (blocks.size() > 1 || (blocks.size() == 1 && capacity != kBlockSize))
    blocks.clear(), capacity = 0;
  used = 0;
}

CallState::Scope::Scope(CallState *state) : previous(currentCall) {
  state->strings.reset();
  state->error.clear();
  currentCall = state;
}

CallState::Scope::~Scope() { currentCall = previous; }

/// Compiled code's report that output `output` of the running function is
/// final (mxc-report-gradients): the instance's callback, if any.
extern "C" void mxrt_output_ready(int32_t output) {
  CallState *state = currentCall;
  if (state && state->outputReady)
    state->outputReady(state->outputArg, state->function, output);
}

} // namespace mxrt

const char *mxrt_string_from_float(double value, int32_t bits) {
  const char *special = std::isnan(value)    ? "NaN"
                        : value == INFINITY  ? "INF"
                        : value == -INFINITY ? "-INF"
                                             : nullptr;
  mxrt::StringArena &arena = mxrt::callState().strings;
  if (special)
    return arena.copy(special, std::strlen(special));
  // NumPy's str(): the shortest digits that read back as the same value of
  // the type, positional for 1e-4 <= |x| < 1e16, else scientific. (16-bit
  // floats print as the float32 of their value.)
  // The shortest digits come from the scientific form ("-1.2345e+06"); the
  // positional one is laid out here, as to_chars' fixed form may print the
  // exact value's digits rather than zeros past the shortest ones.
  char buffer[64];
  std::to_chars_result r =
      bits == 64 ? std::to_chars(buffer, buffer + sizeof(buffer), value,
                                 std::chars_format::scientific)
                 : std::to_chars(buffer, buffer + sizeof(buffer),
                                 static_cast<float>(value),
                                 std::chars_format::scientific);
  std::string text(buffer, r.ptr);
  double magnitude = std::fabs(value);
  if (magnitude != 0 && (magnitude < 1e-4 || magnitude >= 1e16))
    return arena.copy(text.data(), text.size());
  size_t e = text.find('e');
  int exponent = std::atoi(text.c_str() + e + 1);
  bool negative = text[0] == '-';
  std::string digits;
  for (size_t i = negative; i < e; ++i)
    if (text[i] != '.')
      digits += text[i];
  std::string out = negative ? "-" : "";
  if (exponent < 0) {
    out += "0." + std::string(-exponent - 1, '0') + digits;
  } else if (static_cast<size_t>(exponent) + 1 >= digits.size()) {
    out += digits + std::string(exponent + 1 - digits.size(), '0') + ".0";
  } else {
    out += digits.substr(0, exponent + 1) + "." + digits.substr(exponent + 1);
  }
  return arena.copy(out.data(), out.size());
}

const char *mxrt_string_from_int(int64_t value, int32_t is_unsigned) {
  char buffer[24];
  std::to_chars_result r =
      is_unsigned ? std::to_chars(buffer, buffer + sizeof(buffer),
                                  static_cast<uint64_t>(value))
                  : std::to_chars(buffer, buffer + sizeof(buffer), value);
  return mxrt::callState().strings.copy(buffer, r.ptr - buffer);
}

double mxrt_string_to_float(const char *text, int32_t bits) {
  auto [s, n] = mxrt::trimmed(text);
  double value = 0;
  if (mxrt::parseFloat(s, n, bits, &value))
    return value;
  mxrt::recordError("string " + mxrt::quoted(text) + " is not a number");
  return std::numeric_limits<double>::quiet_NaN();
}

int64_t mxrt_string_to_int(const char *text, int32_t is_unsigned) {
  auto [s, n] = mxrt::trimmed(text);
  const char *end = s + n;
  const char *digits = n && s[0] == '+' ? s + 1 : s;
  if (is_unsigned) {
    uint64_t u = 0;
    auto r = std::from_chars(digits, end, u);
    if (r.ec == std::errc() && r.ptr == end)
      return static_cast<int64_t>(u);
  } else {
    int64_t i = 0;
    auto r = std::from_chars(digits, end, i);
    if (r.ec == std::errc() && r.ptr == end && digits < end)
      return i;
  }
  if (mxrt::equalsIgnoringCase(s, n, "true"))
    return 1;
  if (mxrt::equalsIgnoringCase(s, n, "false"))
    return 0;
  // "100.5" -> 100, as ONNX allows; out-of-range values saturate.
  double d = 0;
  if (mxrt::parseFloat(s, n, 64, &d) && !std::isnan(d)) {
    d = std::trunc(d);
    if (is_unsigned)
      return d <= 0 ? 0
             : d >= 18446744073709551616.0
                 ? -1
                 : static_cast<int64_t>(static_cast<uint64_t>(d));
    return d <= -9223372036854775808.0  ? INT64_MIN
           : d >= 9223372036854775808.0 ? INT64_MAX
                                        : static_cast<int64_t>(d);
  }
  mxrt::recordError("string " + mxrt::quoted(text) + " is not a number");
  return 0;
}

mxrt_status mxrt_tensor_set_string(mxrt_tensor *tensor, int64_t index,
                                   const char *value) {
  return mxrt::guarded([&] {
    if (!tensor || tensor->dtype != MXRT_STRING)
      return mxrt::fail(MXRT_INVALID_ARGUMENT,
                        "mxrt_tensor_set_string: not a string tensor");
    if (index < 0 || index >= tensor->numElements)
      return mxrt::fail(MXRT_INVALID_ARGUMENT,
                        "mxrt_tensor_set_string: index %lld is out of range "
                        "(%lld elements)",
                        static_cast<long long>(index),
                        static_cast<long long>(tensor->numElements));
    if (!value)
      value = "";
    if (!tensor->strings) {
      tensor->strings = static_cast<char **>(
          std::calloc(tensor->numElements, sizeof(char *)));
      if (!tensor->strings)
        return mxrt::fail(MXRT_OUT_OF_MEMORY, "out of memory");
    }
    size_t n = std::strlen(value);
    char *copy = static_cast<char *>(std::malloc(n + 1));
    if (!copy)
      return mxrt::fail(MXRT_OUT_OF_MEMORY, "out of memory");
    std::memcpy(copy, value, n + 1);
    std::free(tensor->strings[index]);
    tensor->strings[index] = copy;
    static_cast<const char **>(tensor->data)[index] = copy;
    return MXRT_OK;
  });
}

const char *mxrt_tensor_get_string(const mxrt_tensor *tensor, int64_t index) {
  if (!tensor || tensor->dtype != MXRT_STRING || index < 0 ||
      index >= tensor->numElements)
    return nullptr;
  const char *s = static_cast<const char *const *>(tensor->data)[index];
  return s ? s : "";
}

void mxrt::releaseStrings(mxrt_tensor *tensor) {
  if (!tensor->strings)
    return;
  for (int64_t i = 0; i < tensor->numElements; ++i)
    std::free(tensor->strings[i]);
  std::free(tensor->strings);
  tensor->strings = nullptr;
}

mxrt_status mxrt::copyStringOutputs(const mxrt_function_desc &fn,
                                    mxrt_tensor *const *outputs) {
  for (int64_t o = 0; o < fn.num_outputs; ++o) {
    mxrt_tensor *t = outputs[o];
    if (t->dtype != MXRT_STRING || t->numElements == 0)
      continue;
    // New copies first: the model may have pointed one element at another's
    // old copy (a transpose of a string input that was an earlier output).
    auto *fresh =
        static_cast<char **>(std::calloc(t->numElements, sizeof(char *)));
    if (!fresh)
      return fail(MXRT_OUT_OF_MEMORY, "out of memory");
    auto **data = static_cast<const char **>(t->data);
    for (int64_t i = 0; i < t->numElements; ++i) {
      const char *s = data[i] ? data[i] : "";
      size_t n = std::strlen(s);
      fresh[i] = static_cast<char *>(std::malloc(n + 1));
      if (!fresh[i]) {
        for (int64_t j = 0; j < i; ++j)
          std::free(fresh[j]);
        std::free(fresh);
        return fail(MXRT_OUT_OF_MEMORY, "out of memory");
      }
      std::memcpy(fresh[i], s, n + 1);
    }
    releaseStrings(t);
    t->strings = fresh;
    for (int64_t i = 0; i < t->numElements; ++i)
      data[i] = fresh[i];
  }
  return MXRT_OK;
}
