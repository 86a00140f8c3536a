// SPDX-License-Identifier: Apache-2.0
//
// The MXNet paper's training loop in C++: the network is a Symbol built in
// code, its forward and backward passes run through mx::Executor (compiled
// in this process by the mxc pipeline), and the update is imperative,
// momentum SGD on NDArrays that are the executor's parameters in place.
// Trains the Fashion-MNIST MLP of examples/models, prints loss and accuracy
// per epoch and the test accuracy, and can save the parameters (.params)
// and the symbol (.json) for `mxc` to compile ahead of time.
//
//   train_mlp [--epochs 10] [--lr 0.02] [--momentum 0.9] [--batch 100]
//             [--data DIR] [--limit N] [--test-limit N] [--seed S]
//             [--threads T] [--cache DIR] [--save FILE.params]
//             [--save-symbol FILE.json]

#define program "train_mlp"
#include "../train_fashion/fashion.h"

#include "mxc/executor.h"
#include "networks.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>

namespace {

struct Options {
  common_options common = default_options();
  double momentum = 0.9;
  int64_t batch = 100;
  int32_t threads = 1;
  std::string cacheDir, saveSymbol;
};

Options parse(int argc, char **argv) {
  Options o;
  o.common.epochs = 10;
  o.common.lr = 0.02;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (i + 1 >= argc)
      die(("option " + a + " needs a value").c_str());
    const char *v = argv[++i];
    if (common_option(&o.common, a.c_str(), v))
      continue;
    if (a == "--momentum")
      o.momentum = std::atof(v);
    else if (a == "--batch")
      o.batch = std::atoll(v);
    else if (a == "--threads")
      o.threads = std::atoi(v);
    else if (a == "--cache")
      o.cacheDir = v;
    else if (a == "--save-symbol")
      o.saveSymbol = v;
    else
      die(("unknown option " + a).c_str());
  }
  if (o.batch <= 0 || o.common.epochs < 0)
    die("--batch must be positive and --epochs not negative");
  return o;
}

/// Share of the batch's rows whose largest probability is at the label,
/// and their summed cross entropy.
std::pair<int64_t, double> score(const mx::NDArray &probs,
                                 const float *labels) {
  int64_t batch = probs.shape()[0], classes = probs.shape()[1], correct = 0;
  double loss = 0;
  for (int64_t b = 0; b < batch; ++b) {
    const float *p = probs.data() + b * classes;
    int label = int(labels[b]);
    correct += argmax(p, classes) == label;
    loss -= std::log(std::max(double(p[label]), 1e-30));
  }
  return {correct, loss};
}

} // namespace

int main(int argc, char **argv) {
  Options o = parse(argc, argv);
  dataset train = load(o.common.dir, "train", o.common.limit);
  dataset test = load(o.common.dir, "t10k", o.common.test_limit);
  int64_t pixels = train.rows * train.cols;
  try {
    mx::Symbol net = networks::mlp(10);
    if (!o.saveSymbol.empty())
      net.Save(o.saveSymbol);
    double start = now();
    mx::ExecutorOptions eo;
    eo.threads = o.threads, eo.seed = o.common.seed, eo.cacheDir = o.cacheDir;
    mx::Executor exec(net, {{"data", {o.batch, pixels}}}, eo);
    std::printf("compiled in %.2f s%s\n", now() - start,
                exec.cached() ? " (from the cache)" : "");
    // The update: v = momentum v - lr / batch g; w += v, on the
    // executor's parameters in place.
    std::vector<std::string> names = exec.ParamNames();
    std::vector<mx::NDArray> weights, velocity;
    for (const std::string &name : names) {
      weights.push_back(exec.Param(name));
      velocity.emplace_back(weights.back().shape());
    }
    float step = float(o.common.lr / double(o.batch));
    std::printf("training %lld images, batch %lld, lr %g\n",
                (long long)train.count, (long long)o.batch, o.common.lr);
    std::vector<int64_t> order(train.count);
    for (int64_t i = 0; i < train.count; ++i)
      order[i] = i;
    std::mt19937_64 rng(o.common.seed);
    mx::NDArray &data = exec.Input("data"),
                &label = exec.Input("softmax_label");
    for (int epoch = 1; epoch <= o.common.epochs; ++epoch) {
      std::shuffle(order.begin(), order.end(), rng);
      int64_t correct = 0, seen = 0;
      double loss = 0, begin = now();
      for (int64_t first = 0; first + o.batch <= train.count;
           first += o.batch) {
        fill(&train, order.data(), first, o.batch, data.data(), label.data());
        exec.Backward();
        auto [right, sum] = score(exec.Outputs()[0], label.data());
        correct += right, loss += sum, seen += o.batch;
        for (size_t k = 0; k < names.size(); ++k) {
          velocity[k] *= float(o.momentum);
          velocity[k] -= step * exec.Gradient(names[k]);
          weights[k] += velocity[k];
        }
      }
      if (seen == 0)
        die("the training set is smaller than one batch");
      std::printf("epoch %d: loss %.4f train accuracy %.4f (%.0f images/s)\n",
                  epoch, loss / seen, double(correct) / seen,
                  seen / (now() - begin));
      std::fflush(stdout);
    }
    // Test accuracy through the forward function (inference mode).
    std::vector<int64_t> all(test.count);
    for (int64_t i = 0; i < test.count; ++i)
      all[i] = i;
    std::vector<float> labels(o.batch);
    int64_t correct = 0, seen = 0;
    for (int64_t first = 0; first + o.batch <= test.count; first += o.batch) {
      fill(&test, all.data(), first, o.batch, data.data(), labels.data());
      exec.Forward();
      correct += score(exec.Outputs()[0], labels.data()).first;
      seen += o.batch;
    }
    if (seen == 0)
      die("the test set is smaller than one batch");
    std::printf("test accuracy %.4f\n", double(correct) / seen);
    if (o.common.save) {
      exec.SaveParams(o.common.save);
      std::printf("saved %s\n", o.common.save);
    }
  } catch (const mx::Error &e) {
    std::fprintf(stderr, "%s: %s\n", program, e.what());
    return 1;
  }
  return 0;
}
