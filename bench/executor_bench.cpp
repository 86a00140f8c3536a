// SPDX-License-Identifier: Apache-2.0
//
// mx::Executor against the ahead-of-time path (issue #24): per model, the
// in-process compile and first Forward with an empty cache folder, from
// that folder in a new executor, and from this process's memory; then the
// steady-state Forward against the inference library that the mxc tool
// compiles from the same symbol and parameters, in interleaved rounds; and
// the imperative update `w -= lr * g` on 100 MB against a memcpy of the
// same array in the same run; and the imperative operators (mx::nd): the
// first call of an operator (its compile), later calls, and libmxrt's
// kernel called directly on the same arrays. Prints Markdown tables
// (bench/README.md):
//
//   build/bin/mxc-executor-bench [--rounds 5] [--runs 10] [--models
//   lenet,resnet18]

#include "mxc/executor.h"
#include "mxc/imperative.h"
#include "networks.h"

#include "mxrt/kernels.h"
#include "mxrt/mxrt.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

namespace fs = std::filesystem;

double now() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

double msOf(const std::function<void()> &fn) {
  double start = now();
  fn();
  return 1e3 * (now() - start);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

void check(mxrt_status status, const char *what) {
  if (status != MXRT_OK) {
    std::fprintf(stderr, "executor_bench: %s: %s\n", what, mxrt_last_error());
    std::exit(1);
  }
}

struct Model {
  std::string name;
  mx::Symbol symbol;
  mx::Shape data;
};

/// Rows of the steady-state table, printed after the first one.
std::vector<std::string> steadyRows;

void benchModel(const Model &m, int rounds, int runs) {
  fs::path dir = fs::temp_directory_path() /
                 ("mxc-executor-bench-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  mx::ExecutorOptions options;
  options.cacheDir = dir.string();
  auto firstRun = [&](double &compileMs, double &firstMs) {
    mx::Executor *made = nullptr;
    compileMs = msOf([&] {
      made = new mx::Executor(m.symbol, {{"data", m.data}}, options);
    });
    firstMs = msOf([&] { made->Forward(); });
    return std::unique_ptr<mx::Executor>(made);
  };
  double coldCompile, coldFirst, diskCompile, diskFirst, memCompile, memFirst;
  firstRun(coldCompile, coldFirst).reset();
  std::unique_ptr<mx::Executor> exec = firstRun(diskCompile, diskFirst);
  firstRun(memCompile, memFirst).reset();
  std::printf("| %s | %.0f | %.1f | %.1f | %.1f | %.2f | %.1f |\n",
              m.name.c_str(), coldCompile, coldFirst, diskCompile, diskFirst,
              memCompile, memFirst);

  // The same symbol and parameters through the mxc tool.
  exec->SaveParams((dir / "net.params").string());
  m.symbol.Save((dir / "net.json").string());
  std::string shape;
  for (int64_t d : m.data)
    shape += (shape.empty() ? "" : "x") + std::to_string(d);
  std::string command =
      std::string(MXC_TOOL) + " " + (dir / "net.json").string() + " --params " +
      (dir / "net.params").string() + " --input data=" + shape + " -o " +
      (dir / "libnet.so").string();
  if (std::system(command.c_str()) != 0) {
    std::fprintf(stderr, "executor_bench: failed: %s\n", command.c_str());
    std::exit(1);
  }
  mxrt_model *model = nullptr;
  mxrt_instance *instance = nullptr;
  check(mxrt_model_open((dir / "libnet.so").c_str(), &model), "open");
  check(mxrt_instance_create(model, nullptr, &instance), "instance");
  mx::NDArray out(exec->Outputs()[0].shape());
  mxrt_tensor *in = exec->Input("data").tensor(), *o = out.tensor();
  std::vector<double> jit, aot;
  for (int r = 0; r <= rounds; ++r) { // round 0 warms up
    std::vector<double> a, b;
    for (int i = 0; i < runs; ++i)
      a.push_back(msOf([&] { exec->Forward(); }));
    for (int i = 0; i < runs; ++i)
      b.push_back(msOf(
          [&] { check(mxrt_instance_run(instance, &in, 1, &o, 1), "run"); }));
    if (r > 0)
      jit.push_back(median(a)), aot.push_back(median(b));
  }
  mxrt_instance_release(instance);
  mxrt_model_release(model);
  exec.reset();
  fs::remove_all(dir);
  char row[256];
  std::snprintf(row, sizeof row, "| %s | %.3f | %.3f | %.2f |\n",
                m.name.c_str(), median(jit), median(aot),
                median(jit) / median(aot));
  steadyRows.push_back(row);
}

void benchUpdate(int rounds) {
  const int64_t n = 25 << 20; // 100 MiB of float32
  mx::NDArray w = mx::NDArray::Full({n}, 1.0f),
              g = mx::NDArray::Full({n}, 0.5f), copy({n});
  std::vector<double> update, memcpyMs;
  for (int r = 0; r <= rounds; ++r) {
    // Pushed to the engine: timed until it has run.
    double u = msOf([&] {
      w -= 0.01f * g;
      w.WaitToRead();
    });
    double c = msOf(
        [&] { std::memcpy(copy.data(), g.data(), size_t(n) * sizeof(float)); });
    if (r > 0)
      update.push_back(u), memcpyMs.push_back(c);
  }
  // Bytes moved: the update reads w and g and writes w; memcpy reads one
  // array and writes another.
  double gb = double(n) * sizeof(float) / 1e9;
  double updateGBs = 3 * gb / (median(update) / 1e3),
         copyGBs = 2 * gb / (median(memcpyMs) / 1e3);
  std::printf("\nImperative update on 100 MiB, medians of %d interleaved "
              "rounds\n\n| operation | ms | GB/s |\n|---|---:|---:|\n"
              "| `w -= lr * g` | %.1f | %.1f |\n| memcpy | %.1f | %.1f |\n"
              "| update / memcpy bandwidth | | %.2f |\n",
              rounds, median(update), updateGBs, median(memcpyMs), copyGBs,
              updateGBs / copyGBs);
}

/// nd::Convolution (LeNet's second layer, batch 64) and nd::FullyConnected
/// (784 -> 256, batch 64): the first call, which compiles, then later calls
/// (each waited for) against libmxrt's kernel called directly on the same
/// arrays, interleaved.
void benchImperative(int rounds, int runs) {
  std::printf("\nImperative operators: nd:: calls (compiled on first use, "
              "then cached; run on the NDArray engine) against libmxrt's "
              "kernel on the same arrays, medians of %d interleaved rounds "
              "of %d calls\n\n| operator | first call ms | call ms | "
              "kernel ms | call / kernel |\n|---|---:|---:|---:|---:|\n",
              rounds, runs);
  auto row = [&](const char *name, const std::function<mx::NDArray()> &call,
                 const std::function<void()> &kernel) {
    double first = msOf([&] { call().WaitToRead(); });
    std::vector<double> calls, kernels;
    for (int r = 0; r < rounds; ++r) {
      calls.push_back(msOf([&] {
                        for (int i = 0; i < runs; ++i)
                          call().WaitToRead();
                      }) /
                      runs);
      kernels.push_back(msOf([&] {
                          for (int i = 0; i < runs; ++i)
                            kernel();
                        }) /
                        runs);
    }
    std::printf("| %s | %.1f | %.3f | %.3f | %.2f |\n", name, first,
                median(calls), median(kernels),
                median(calls) / median(kernels));
  };
  // (The kernel's arrays are made here and never pushed to: their buffers
  // are read directly.)
  mx::NDArray x = mx::NDArray::Uniform({64, 20, 12, 12}, -1, 1, 1),
              w = mx::NDArray::Uniform({50, 20, 5, 5}, -1, 1, 2),
              b = mx::NDArray::Zeros({50}), y({64, 50, 8, 8});
  row(
      "Convolution 20 -> 50, 5x5, 12x12, batch 64",
      [&] {
        return mx::nd::Convolution(
            x, w, b, {.kernel = mx::Shape{5, 5}, .num_filter = 50});
      },
      [&] {
        mxrt_kernel_sconv2d(64, 20, 12, 12, 50, 8, 8, 5, 5, 1, 1, 0, 0, 1, 1, 1,
                            x.GetData(), w.GetData(), b.GetData(), y.GetData(),
                            0);
      });
  mx::NDArray a = mx::NDArray::Uniform({64, 784}, -1, 1, 3),
              fw = mx::NDArray::Uniform({256, 784}, -1, 1, 4),
              fb = mx::NDArray::Zeros({256}), out({64, 256});
  row(
      "FullyConnected 784 -> 256, batch 64",
      [&] { return mx::nd::FullyConnected(a, fw, fb, {.num_hidden = 256}); },
      [&] {
        // out = a fw^T + fb: the GEMM with fw read transposed.
        mxrt_kernel_sgemm(1, 64, 256, 784, a.GetData(), 0, 784, 1, fw.GetData(),
                          0, 1, 784, out.GetData(), 0, 256, 1, fb.GetData(), 0,
                          0, 1, 0);
      });
}

} // namespace

int main(int argc, char **argv) {
  int rounds = 5, runs = 10;
  std::string models = "lenet,resnet18";
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    if (flag == "--rounds")
      rounds = std::atoi(argv[i + 1]);
    else if (flag == "--runs")
      runs = std::atoi(argv[i + 1]);
    else if (flag == "--models")
      models = argv[i + 1];
    else {
      std::fprintf(stderr, "executor_bench: unknown flag %s\n", flag.c_str());
      return 2;
    }
  }
  try {
    std::vector<Model> list;
    if (models.find("lenet") != std::string::npos)
      list.push_back({"LeNet, batch 64", networks::lenet(10), {64, 1, 28, 28}});
    if (models.find("resnet18") != std::string::npos)
      list.push_back(
          {"ResNet-18, batch 1",
           mx::Symbol::Load(MXC_EXAMPLES_DIR "/models/resnet18_v1.json"),
           {1, 3, 224, 224}});
    std::printf("mx::Executor, one thread: construction (compile + load) "
                "and first Forward, ms\n\n| model | compile, empty cache | "
                "first Forward | from the cache folder | first Forward | "
                "from memory | first Forward |\n"
                "|---|---:|---:|---:|---:|---:|---:|\n");
    for (const Model &m : list)
      benchModel(m, rounds, runs);
    std::printf("\nSteady state: Forward against the mxc tool's inference "
                "library of the same symbol and parameters, medians of %d "
                "interleaved rounds of %d runs\n\n| model | Executor ms | "
                "AOT library ms | Executor / AOT |\n|---|---:|---:|---:|\n",
                rounds, runs);
    for (const std::string &row : steadyRows)
      std::fputs(row.c_str(), stdout);
    benchUpdate(rounds);
    benchImperative(rounds, runs);
  } catch (const mx::Error &e) {
    std::fprintf(stderr, "executor_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
