// SPDX-License-Identifier: Apache-2.0
//
// The C++ tour of docs/cpp-api.md, one file: a symbol built in C++,
// NDArrays and an imperative operator, an Executor compiled in this
// process, the paper's training loop (symbolic forward/backward, imperative
// update), and the trained model written for the `mxc` tool. It learns to
// tell which of two features is larger; the data is generated here, so it
// needs no files.
//
//   build/bin/mxc-cpp-tour [OUT_DIR]   (writes OUT_DIR/tour.json, .params)

#include <mxc/executor.h>
#include <mxc/imperative.h>
#include <mxc/symbol.h>

#include <cstdio>
#include <string>

int main(int argc, char **argv) {
  std::string out = argc > 1 ? argv[1] : ".";
  try {
    // 1. A symbol: an MLP with a softmax loss head, as MXNet builds one.
    mx::Symbol x = mx::Symbol::Variable("data");
    x = mx::sym::FullyConnected(x, {.name = "fc1", .num_hidden = 16});
    x = mx::sym::Activation(x, {.name = "relu1", .act_type = "relu"});
    x = mx::sym::FullyConnected(x, {.name = "fc2", .num_hidden = 2});
    mx::Symbol net = mx::sym::SoftmaxOutput(x, {.name = "softmax"});
    auto shapes = net.InferShape({{"data", {32, 2}}});
    std::printf("arguments: %zu, fc1_weight is %lldx%lld\n",
                net.ListArguments().size(), (long long)shapes.arguments[1][0],
                (long long)shapes.arguments[1][1]);

    // 2. NDArrays: asynchronous operations, and any operator imperatively.
    mx::NDArray a = mx::NDArray::Uniform({32, 2}, -1, 1, /*seed=*/7);
    mx::NDArray relu = mx::nd::Activation(a, {.act_type = "relu"});
    mx::NDArray twice = relu + relu; // queued behind relu
    std::printf("relu + relu: %zu values, all >= 0: %s\n", twice.size(), [&] {
      for (float v : twice.ToVector()) // waits
        if (v < 0)
          return "no";
      return "yes";
    }());

    // 3. The Executor: compiled here, by the mxc pipeline.
    mx::Executor exec(net, {{"data", {32, 2}}}, {.seed = 1});

    // 4. The training loop: forward/backward, then w -= lr * g per weight.
    float lr = 0.5f / 32;
    for (int step = 0; step < 300; ++step) {
      mx::NDArray batch = mx::NDArray::Uniform({32, 2}, -1, 1, 100 + step);
      std::vector<float> features = batch.ToVector(), labels(32);
      for (int i = 0; i < 32; ++i)
        labels[i] = features[2 * i] > features[2 * i + 1] ? 1.0f : 0.0f;
      exec.SetInput("data", batch);
      exec.SetInput("softmax_label", mx::NDArray({32}, labels));
      exec.Backward();
      for (const std::string &name : exec.ParamNames())
        exec.Param(name) -= lr * exec.Gradient(name);
    }

    // 5. How well it learned, on fresh data.
    mx::NDArray test = mx::NDArray::Uniform({32, 2}, -1, 1, 99999);
    exec.SetInput("data", test);
    exec.Forward();
    std::vector<float> f = test.ToVector(), p = exec.Outputs()[0].ToVector();
    int right = 0;
    for (int i = 0; i < 32; ++i)
      right += (p[2 * i + 1] > p[2 * i]) == (f[2 * i] > f[2 * i + 1]);
    std::printf("test accuracy: %d of 32\n", right);

    // 6. For the mxc tool: mxc tour.json --params tour.params -o libtour.so
    net.Save(out + "/tour.json");
    exec.SaveParams(out + "/tour.params");
    std::printf("wrote %s/tour.json and %s/tour.params\n", out.c_str(),
                out.c_str());
  } catch (const mx::Error &e) {
    std::fprintf(stderr, "tour: %s\n", e.what());
    return 1;
  }
  return 0;
}
