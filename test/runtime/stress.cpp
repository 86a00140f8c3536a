// SPDX-License-Identifier: Apache-2.0
//
// mxrt-stress LIB [--threads N] [--runs R] [--instance-threads T]
//
// Concurrent use of one compiled model (issue #27): N threads each create
// their own instance of LIB (T kernel threads each, default 1), run its
// forward function R times on the same seeded inputs, and compare every
// output bit for bit with one run on a single thread before them. Threads
// finish, and release their instances, while others still run. Exits 0 when
// every run matched, 1 (naming the first difference) otherwise. Run under
// ThreadSanitizer in the -DMXC_SANITIZE=thread build (docs/security.md).
#include "mxrt/mxrt.h"

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

struct Options {
  std::string library;
  int threads = 8;
  int runs = 1000;
  int instanceThreads = 1;
};

[[noreturn]] void usage(const char *message) {
  std::fprintf(stderr,
               "mxrt-stress: %s\nusage: mxrt-stress LIB [--threads N] "
               "[--runs R] [--instance-threads T]\n",
               message);
  std::exit(2);
}

int positive(const char *flag, const char *text) {
  char *end = nullptr;
  long value = std::strtol(text, &end, 10);
  if (!*text || *end || value < 1 || value > 1000000)
    usage((std::string(flag) + " expects an integer in [1, 1000000], got '" +
           text + "'")
              .c_str());
  return static_cast<int>(value);
}

Options parse(int argc, char **argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    bool hasValue = i + 1 < argc;
    if (arg == "--threads" && hasValue)
      options.threads = positive("--threads", argv[++i]);
    else if (arg == "--runs" && hasValue)
      options.runs = positive("--runs", argv[++i]);
    else if (arg == "--instance-threads" && hasValue)
      options.instanceThreads = positive("--instance-threads", argv[++i]);
    else if (arg[0] != '-' && options.library.empty())
      options.library = arg;
    else
      usage(("unexpected argument '" + arg + "'").c_str());
  }
  if (options.library.empty())
    usage("no model library given");
  return options;
}

[[noreturn]] void die(const std::string &what) {
  std::fprintf(stderr, "mxrt-stress: %s: %s\n", what.c_str(),
               mxrt_last_error());
  std::exit(1);
}

struct TensorDeleter {
  void operator()(mxrt_tensor *t) const { mxrt_tensor_release(t); }
};
using TensorPtr = std::unique_ptr<mxrt_tensor, TensorDeleter>;

/// New tensors shaped as the model's inputs (outputs with `input` false).
std::vector<TensorPtr> tensorsFor(const mxrt_model *model, bool input) {
  int32_t count =
      input ? mxrt_model_num_inputs(model) : mxrt_model_num_outputs(model);
  std::vector<TensorPtr> tensors;
  for (int32_t i = 0; i < count; ++i) {
    mxrt_tensor_info info;
    if ((input ? mxrt_model_input_info(model, i, &info)
               : mxrt_model_output_info(model, i, &info)) != MXRT_OK)
      die("reading the model's tensors");
    if (info.dtype == MXRT_STRING)
      usage("models with string inputs or outputs are not supported");
    mxrt_tensor *tensor = nullptr;
    if (mxrt_tensor_create(info.dtype, info.ndim, info.shape, &tensor) !=
        MXRT_OK)
      die(std::string("allocating '") + info.name + "'");
    tensors.emplace_back(tensor);
  }
  return tensors;
}

/// Seeded inputs: uniform in [-1, 1) for float32/float64, small integers
/// (bytes below 10) otherwise.
void fillInputs(std::vector<TensorPtr> &inputs) {
  std::mt19937_64 random(0);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  for (TensorPtr &t : inputs) {
    int64_t n = mxrt_tensor_num_elements(t.get());
    void *data = mxrt_tensor_data(t.get());
    switch (mxrt_tensor_dtype(t.get())) {
    case MXRT_F32:
      for (int64_t i = 0; i < n; ++i)
        static_cast<float *>(data)[i] = static_cast<float>(uniform(random));
      break;
    case MXRT_F64:
      for (int64_t i = 0; i < n; ++i)
        static_cast<double *>(data)[i] = uniform(random);
      break;
    default:
      std::memset(data, 0, mxrt_tensor_size_bytes(t.get()));
      for (size_t i = 0; i < mxrt_tensor_size_bytes(t.get()); ++i)
        if (i % mxrt_dtype_size(mxrt_tensor_dtype(t.get())) == 0)
          static_cast<uint8_t *>(data)[i] = random() % 10;
    }
  }
}

std::vector<mxrt_tensor *> raw(const std::vector<TensorPtr> &tensors) {
  std::vector<mxrt_tensor *> pointers;
  for (const TensorPtr &t : tensors)
    pointers.push_back(t.get());
  return pointers;
}

} // namespace

int main(int argc, char **argv) {
  Options options = parse(argc, argv);
  mxrt_model *model = nullptr;
  if (mxrt_model_open(options.library.c_str(), &model) != MXRT_OK)
    die("opening '" + options.library + "'");
  mxrt_instance_options instanceOptions;
  mxrt_instance_options_init(&instanceOptions);
  instanceOptions.num_threads = options.instanceThreads;

  std::vector<TensorPtr> inputs = tensorsFor(model, /*input=*/true);
  fillInputs(inputs);
  std::vector<mxrt_tensor *> in = raw(inputs);
  int32_t numIn = static_cast<int32_t>(in.size());

  // The reference: one run, nothing else running.
  std::vector<TensorPtr> reference = tensorsFor(model, /*input=*/false);
  {
    mxrt_instance *instance = nullptr;
    if (mxrt_instance_create(model, &instanceOptions, &instance) != MXRT_OK)
      die("creating the reference instance");
    std::vector<mxrt_tensor *> out = raw(reference);
    if (mxrt_instance_run(instance, in.data(), numIn, out.data(),
                          static_cast<int32_t>(out.size())) != MXRT_OK)
      die("the reference run");
    mxrt_instance_release(instance);
  }

  std::atomic<long> mismatches{0}, failures{0};
  std::mutex firstMutex;
  std::string first;
  std::vector<std::thread> threads;
  for (int thread = 0; thread < options.threads; ++thread)
    threads.emplace_back([&, thread] {
      auto report = [&](std::atomic<long> &counter, const std::string &what) {
        if (counter++ == 0) {
          std::lock_guard<std::mutex> lock(firstMutex);
          if (first.empty())
            first = what;
        }
      };
      mxrt_instance *instance = nullptr;
      if (mxrt_instance_create(model, &instanceOptions, &instance) != MXRT_OK) {
        report(failures, "thread " + std::to_string(thread) +
                             ": creating its instance: " + mxrt_last_error());
        return;
      }
      std::vector<TensorPtr> outputs = tensorsFor(model, /*input=*/false);
      std::vector<mxrt_tensor *> out = raw(outputs);
      for (int run = 0; run < options.runs; ++run) {
        for (mxrt_tensor *t : out) // stale results must not pass
          std::memset(mxrt_tensor_data(t), 0xff, mxrt_tensor_size_bytes(t));
        if (mxrt_instance_run(instance, in.data(), numIn, out.data(),
                              static_cast<int32_t>(out.size())) != MXRT_OK) {
          report(failures, "thread " + std::to_string(thread) + " run " +
                               std::to_string(run) + ": " + mxrt_last_error());
          break;
        }
        for (size_t o = 0; o < out.size(); ++o)
          if (std::memcmp(mxrt_tensor_data(out[o]),
                          mxrt_tensor_data(reference[o].get()),
                          mxrt_tensor_size_bytes(out[o])) != 0) {
            mxrt_tensor_info info;
            mxrt_model_output_info(model, static_cast<int32_t>(o), &info);
            report(mismatches, "thread " + std::to_string(thread) + " run " +
                                   std::to_string(run) + ": output '" +
                                   info.name + "' differs");
          }
      }
      mxrt_instance_release(instance);
    });
  for (std::thread &thread : threads)
    thread.join();

  long total = static_cast<long>(options.threads) * options.runs;
  std::printf("mxrt-stress: model '%s': %d threads x %d runs (%d kernel "
              "threads each): %ld runs failed, %ld outputs differ from the "
              "single-threaded run\n",
              mxrt_model_name(model), options.threads, options.runs,
              options.instanceThreads, failures.load(), mismatches.load());
  mxrt_model_release(model);
  if (failures || mismatches) {
    std::fprintf(stderr, "mxrt-stress: first problem: %s\n", first.c_str());
    return 1;
  }
  std::printf("mxrt-stress: all %ld runs bit-identical\n", total);
  return 0;
}
