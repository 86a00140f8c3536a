// SPDX-License-Identifier: Apache-2.0
//
// MXNet's image-classification networks (example/image-classification/
// symbols/ of Apache MXNet) built with the C++ symbol API, layer by layer
// as examples/models/gen_models.py builds them in Python: the same layer
// sizes, attributes and node names. gen_models.cpp writes them as JSON;
// test/api checks them against the Python-written files.

#ifndef MXC_EXAMPLES_SYMBOL_MODELS_NETWORKS_H
#define MXC_EXAMPLES_SYMBOL_MODELS_NETWORKS_H

#include "mxc/symbol.h"

#include <string>
#include <vector>

namespace networks {

using mx::Symbol;
namespace sym = mx::sym;

inline Symbol relu(const Symbol &x, const std::string &name = "") {
  return sym::Activation(x, {.name = name, .act_type = "relu"});
}

inline Symbol mlp(int64_t classes = 1000) {
  Symbol x = sym::Flatten(Symbol::Variable("data"));
  x = relu(sym::FullyConnected(x, {.name = "fc1", .num_hidden = 128}), "relu1");
  x = relu(sym::FullyConnected(x, {.name = "fc2", .num_hidden = 64}), "relu2");
  x = sym::FullyConnected(x, {.name = "fc3", .num_hidden = classes});
  return sym::SoftmaxOutput(x, {.name = "softmax"});
}

/// Auto-named nodes (convolution0, ...), as MXNet's lenet.py.
inline Symbol lenet(int64_t classes = 1000) {
  Symbol x = Symbol::Variable("data");
  for (int64_t filters : {20, 50}) {
    x = sym::Convolution(x, {.kernel = {{5, 5}}, .num_filter = filters});
    x = sym::Activation(x, {.act_type = "tanh"});
    x = sym::Pooling(x, {.kernel = {2, 2}, .stride = {2, 2}});
  }
  x = sym::Flatten(x);
  x = sym::Activation(sym::FullyConnected(x, {.num_hidden = 500}),
                      {.act_type = "tanh"});
  x = sym::FullyConnected(x, {.num_hidden = classes});
  return sym::SoftmaxOutput(x, {.name = "softmax"});
}

inline Symbol alexnet(int64_t classes = 1000) {
  auto lrn = [](const Symbol &x) {
    return sym::LRN(x, {.alpha = 0.0001, .beta = 0.75, .knorm = 2, .nsize = 5});
  };
  auto maxPool = [](const Symbol &x) {
    return sym::Pooling(x, {.kernel = {3, 3}, .stride = {2, 2}});
  };
  Symbol x = Symbol::Variable("data");
  x = sym::Convolution(x, {.name = "conv1",
                           .kernel = {{11, 11}},
                           .stride = {4, 4},
                           .num_filter = 96});
  x = maxPool(lrn(relu(x)));
  x = sym::Convolution(
      x,
      {.name = "conv2", .kernel = {{5, 5}}, .pad = {2, 2}, .num_filter = 256});
  x = maxPool(lrn(relu(x)));
  int k = 3;
  for (int64_t filters : {384, 384, 256})
    x = relu(sym::Convolution(x, {.name = "conv" + std::to_string(k++),
                                  .kernel = {{3, 3}},
                                  .pad = {1, 1},
                                  .num_filter = filters}));
  x = sym::Flatten(maxPool(x));
  for (const char *fc : {"fc1", "fc2"})
    x = sym::Dropout(
        relu(sym::FullyConnected(x, {.name = fc, .num_hidden = 4096})),
        {.p = 0.5});
  x = sym::FullyConnected(x, {.name = "fc3", .num_hidden = classes});
  return sym::SoftmaxOutput(x, {.name = "softmax"});
}

inline Symbol vgg16(bool batchNorm, int64_t classes = 1000) {
  const int layers[] = {2, 2, 3, 3, 3};
  const int64_t filters[] = {64, 128, 256, 512, 512};
  Symbol x = Symbol::Variable("data");
  for (int i = 0; i < 5; ++i) {
    for (int j = 0; j < layers[i]; ++j) {
      std::string id = std::to_string(i + 1) + "_" + std::to_string(j + 1);
      x = sym::Convolution(x, {.name = "conv" + id,
                               .kernel = {{3, 3}},
                               .pad = {1, 1},
                               .num_filter = filters[i]});
      if (batchNorm)
        x = sym::BatchNorm(x, {.name = "bn" + id});
      x = relu(x, "relu" + id);
    }
    x = sym::Pooling(x, {.name = "pool" + std::to_string(i + 1),
                         .kernel = {2, 2},
                         .stride = {2, 2}});
  }
  x = sym::Flatten(x, {.name = "flatten"});
  for (int fc : {6, 7}) {
    std::string n = std::to_string(fc);
    x = relu(sym::FullyConnected(x, {.name = "fc" + n, .num_hidden = 4096}),
             "relu" + n);
    x = sym::Dropout(x, {.name = "drop" + n, .p = 0.5});
  }
  x = sym::FullyConnected(x, {.name = "fc8", .num_hidden = classes});
  return sym::SoftmaxOutput(x, {.name = "softmax"});
}

/// Inception-BN (inception-bn.py, the branch for images over 28x28).
inline Symbol ibnConv(const Symbol &x, int64_t filters,
                      std::vector<int64_t> kernel, std::vector<int64_t> stride,
                      std::vector<int64_t> pad, const std::string &name,
                      const std::string &suffix = "") {
  Symbol c = sym::Convolution(x, {.name = "conv_" + name + suffix,
                                  .kernel = kernel,
                                  .stride = stride,
                                  .pad = pad,
                                  .num_filter = filters});
  Symbol bn = sym::BatchNorm(c, {.name = "bn_" + name + suffix,
                                 .eps = 1e-10 + 1e-5,
                                 .momentum = 0.9,
                                 .fix_gamma = false});
  return relu(bn, "relu_" + name + suffix);
}

/// The 3x3 and double-3x3 branches both Inception-BN modules have: a 1x1
/// reduction, then one or two 3x3 convolutions, the last striding `s`.
inline Symbol ibn3x3(const Symbol &x, int64_t reduce, int64_t filters,
                     const std::string &name, int64_t s) {
  Symbol c =
      ibnConv(x, reduce, {1, 1}, {1, 1}, {0, 0}, name + "_3x3", "_reduce");
  return ibnConv(c, filters, {3, 3}, {s, s}, {1, 1}, name + "_3x3");
}
inline Symbol ibnDouble3x3(const Symbol &x, int64_t reduce, int64_t filters,
                           const std::string &name, int64_t s) {
  Symbol c = ibnConv(x, reduce, {1, 1}, {1, 1}, {0, 0}, name + "_double_3x3",
                     "_reduce");
  c = ibnConv(c, filters, {3, 3}, {1, 1}, {1, 1}, name + "_double_3x3_0");
  return ibnConv(c, filters, {3, 3}, {s, s}, {1, 1}, name + "_double_3x3_1");
}

inline Symbol inceptionA(const Symbol &x, int64_t n1x1, int64_t n3x3red,
                         int64_t n3x3, int64_t nd3x3red, int64_t nd3x3,
                         const std::string &pool, int64_t proj,
                         const std::string &name) {
  Symbol c1 = ibnConv(x, n1x1, {1, 1}, {1, 1}, {0, 0}, name + "_1x1");
  Symbol c3 = ibn3x3(x, n3x3red, n3x3, name, 1);
  Symbol cd = ibnDouble3x3(x, nd3x3red, nd3x3, name, 1);
  Symbol p = sym::Pooling(x, {.name = pool + "_pool_" + name + "_pool",
                              .kernel = {3, 3},
                              .pool_type = pool,
                              .stride = {1, 1},
                              .pad = {1, 1}});
  p = ibnConv(p, proj, {1, 1}, {1, 1}, {0, 0}, name + "_proj");
  return sym::Concat({c1, c3, cd, p},
                     {.name = "ch_concat_" + name + "_chconcat"});
}

inline Symbol inceptionB(const Symbol &x, int64_t n3x3red, int64_t n3x3,
                         int64_t nd3x3red, int64_t nd3x3,
                         const std::string &name) {
  Symbol c3 = ibn3x3(x, n3x3red, n3x3, name, 2);
  Symbol cd = ibnDouble3x3(x, nd3x3red, nd3x3, name, 2);
  Symbol p = sym::Pooling(x, {.name = "max_pool_" + name + "_pool",
                              .kernel = {3, 3},
                              .stride = {2, 2},
                              .pad = {1, 1}});
  return sym::Concat({c3, cd, p}, {.name = "ch_concat_" + name + "_chconcat"});
}

inline Symbol inceptionBN(int64_t classes = 1000) {
  Symbol x = Symbol::Variable("data");
  x = ibnConv(x, 64, {7, 7}, {2, 2}, {3, 3}, "1");
  x = sym::Pooling(x, {.name = "pool_1", .kernel = {3, 3}, .stride = {2, 2}});
  x = ibnConv(x, 64, {1, 1}, {1, 1}, {0, 0}, "2_red");
  x = ibnConv(x, 192, {3, 3}, {1, 1}, {1, 1}, "2");
  x = sym::Pooling(x, {.name = "pool_2", .kernel = {3, 3}, .stride = {2, 2}});
  x = inceptionA(x, 64, 64, 64, 64, 96, "avg", 32, "3a");
  x = inceptionA(x, 64, 64, 96, 64, 96, "avg", 64, "3b");
  x = inceptionB(x, 128, 160, 64, 96, "3c");
  x = inceptionA(x, 224, 64, 96, 96, 128, "avg", 128, "4a");
  x = inceptionA(x, 192, 96, 128, 96, 128, "avg", 128, "4b");
  x = inceptionA(x, 160, 128, 160, 128, 160, "avg", 128, "4c");
  x = inceptionA(x, 96, 128, 192, 160, 192, "avg", 128, "4d");
  x = inceptionB(x, 128, 192, 192, 256, "4e");
  x = inceptionA(x, 352, 192, 320, 160, 224, "avg", 128, "5a");
  x = inceptionA(x, 352, 192, 320, 192, 224, "max", 128, "5b");
  x = sym::Pooling(x, {.name = "global_pool",
                       .kernel = {7, 7},
                       .pool_type = "avg",
                       .stride = {1, 1}});
  x = sym::FullyConnected(sym::Flatten(x), {.num_hidden = classes});
  return sym::SoftmaxOutput(x, {.name = "softmax"});
}

struct Network {
  const char *file;
  Symbol (*build)();
};

/// The networks gen_models.cpp writes, by examples/models file name.
inline std::vector<Network> all() {
  return {{"mlp.json", [] { return mlp(); }},
          {"lenet.json", [] { return lenet(); }},
          {"alexnet.json", [] { return alexnet(); }},
          {"vgg16.json", [] { return vgg16(false); }},
          {"vgg16_bn.json", [] { return vgg16(true); }},
          {"inception-bn.json", [] { return inceptionBN(); }}};
}

} // namespace networks

#endif // MXC_EXAMPLES_SYMBOL_MODELS_NETWORKS_H
