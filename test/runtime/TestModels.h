// SPDX-License-Identifier: Apache-2.0
//
// Hand-written training models (ABI v2 descriptors with tiny C++ entry
// points) standing in for libraries built with `mxc --train`, so that the
// runtime's training API is tested without the compiler. Each entry point
// reads its buffers in the ABI's order [inputs, outputs, params, states].

#ifndef MXRT_TEST_TESTMODELS_H
#define MXRT_TEST_TESTMODELS_H

#include "mxrt/model_abi.h"
#include "mxrt/mxrt.h"

#include <cmath>
#include <cstddef>
#include <cstdint>

namespace mxrt_test::linear {

// A linear regression with momentum SGD:
//   forward:    x (2x3) -> y (2)          y[i] = sum_j x[i][j] w[j] + b[0]
//   grad:       x, label (2) -> loss (scalar), grad_w (3), grad_b (1)
//               loss = 1/2 sum_i (y[i] - label[i])^2
//   train_step: x, label, lr (scalar) -> loss; momentum = 0.9 momentum + g,
//               param -= lr momentum; running_mean = 0.9 running_mean +
//               0.1 column mean of x (an aux parameter, as BatchNorm's)
//   states:     no inputs -> the two momentum states, copied
// Parameters: w (3, trainable), b (1, trainable), running_mean (3, aux).
// States: momentum_w (3), momentum_b (1).

constexpr int rows = 2, cols = 3;
constexpr float initialW[cols] = {1.0f, 2.0f, 3.0f};
constexpr float initialB = 0.5f;

struct Weights {
  alignas(64) float w[cols];
  alignas(64) float b[1];
  alignas(64) float runningMean[cols];
};
alignas(64) inline const Weights weights = {
    {initialW[0], initialW[1], initialW[2]}, {initialB}, {0, 0, 0}};

/// Parameters and states: where they start in each function's buffers.
struct Slots {
  float *w, *b, *runningMean, *momentumW, *momentumB;
};
inline Slots slotsAt(void *const *buffers, int first) {
  return {static_cast<float *>(buffers[first]),
          static_cast<float *>(buffers[first + 1]),
          static_cast<float *>(buffers[first + 2]),
          static_cast<float *>(buffers[first + 3]),
          static_cast<float *>(buffers[first + 4])};
}

inline void predict(const float *x, const Slots &s, float *y) {
  for (int i = 0; i < rows; ++i) {
    y[i] = s.b[0];
    for (int j = 0; j < cols; ++j)
      y[i] += x[i * cols + j] * s.w[j];
  }
}

/// The loss and gradients of grad and train_step.
inline float lossAndGrad(const float *x, const float *label, const Slots &s,
                         float *gradW, float *gradB) {
  float y[rows];
  predict(x, s, y);
  float loss = 0;
  gradB[0] = 0;
  for (int j = 0; j < cols; ++j)
    gradW[j] = 0;
  for (int i = 0; i < rows; ++i) {
    float r = y[i] - label[i];
    loss += 0.5f * r * r;
    gradB[0] += r;
    for (int j = 0; j < cols; ++j)
      gradW[j] += r * x[i * cols + j];
  }
  return loss;
}

inline void forward(void *const *buffers, mxrt_exec_context *) {
  predict(static_cast<const float *>(buffers[0]), slotsAt(buffers, 2),
          static_cast<float *>(buffers[1]));
}

inline void grad(void *const *buffers, mxrt_exec_context *) {
  auto *loss = static_cast<float *>(buffers[2]);
  *loss = lossAndGrad(static_cast<const float *>(buffers[0]),
                      static_cast<const float *>(buffers[1]),
                      slotsAt(buffers, 5), static_cast<float *>(buffers[3]),
                      static_cast<float *>(buffers[4]));
}

/// Uses scratch for the gradients, so that a missing or misaligned scratch
/// (the instance's is sized for the largest function) shows as a NaN loss.
inline void trainStep(void *const *buffers, mxrt_exec_context *ctx) {
  const auto *x = static_cast<const float *>(buffers[0]);
  const auto *label = static_cast<const float *>(buffers[1]);
  float lr = *static_cast<const float *>(buffers[2]);
  auto *loss = static_cast<float *>(buffers[3]);
  Slots s = slotsAt(buffers, 4);
  if (!ctx || !ctx->scratch ||
      reinterpret_cast<uintptr_t>(ctx->scratch) % 64 != 0) {
    *loss = NAN;
    return;
  }
  float *gradW = reinterpret_cast<float *>(ctx->scratch);
  float *gradB = gradW + cols;
  *loss = lossAndGrad(x, label, s, gradW, gradB);
  for (int j = 0; j < cols; ++j) {
    s.momentumW[j] = 0.9f * s.momentumW[j] + gradW[j];
    s.w[j] -= lr * s.momentumW[j];
    float mean = (x[j] + x[cols + j]) / rows;
    s.runningMean[j] = 0.9f * s.runningMean[j] + 0.1f * mean;
  }
  s.momentumB[0] = 0.9f * s.momentumB[0] + gradB[0];
  s.b[0] -= lr * s.momentumB[0];
}

inline void readStates(void *const *buffers, mxrt_exec_context *) {
  Slots s = slotsAt(buffers, 2);
  auto *outW = static_cast<float *>(buffers[0]);
  auto *outB = static_cast<float *>(buffers[1]);
  for (int j = 0; j < cols; ++j)
    outW[j] = s.momentumW[j];
  outB[0] = s.momentumB[0];
}

inline const int64_t shapeX[] = {rows, cols};
inline const int64_t shapeRows[] = {rows};
inline const int64_t shapeCols[] = {cols};
inline const int64_t shapeOne[] = {1};

inline const mxrt_tensor_desc forwardInputs[] = {
    {"x", MXRT_F32, 2, shapeX, 0, rows *cols * 4, 0}};
inline const mxrt_tensor_desc forwardOutputs[] = {
    {"y", MXRT_F32, 1, shapeRows, 0, rows * 4, 0}};
inline const mxrt_tensor_desc gradInputs[] = {
    {"x", MXRT_F32, 2, shapeX, 0, rows *cols * 4, 0},
    {"label", MXRT_F32, 1, shapeRows, 0, rows * 4, 0}};
inline const mxrt_tensor_desc gradOutputs[] = {
    {"loss", MXRT_F32, 0, nullptr, 0, 4, 0},
    {"grad_w", MXRT_F32, 1, shapeCols, 0, cols * 4, 0},
    {"grad_b", MXRT_F32, 1, shapeOne, 0, 4, 0}};
inline const mxrt_tensor_desc trainInputs[] = {
    {"x", MXRT_F32, 2, shapeX, 0, rows *cols * 4, 0},
    {"label", MXRT_F32, 1, shapeRows, 0, rows * 4, 0},
    {"lr", MXRT_F32, 0, nullptr, 0, 4, 0}};
inline const mxrt_tensor_desc trainOutputs[] = {
    {"loss", MXRT_F32, 0, nullptr, 0, 4, 0}};
inline const mxrt_tensor_desc stateOutputs[] = {
    {"momentum_w", MXRT_F32, 1, shapeCols, 0, cols * 4, 0},
    {"momentum_b", MXRT_F32, 1, shapeOne, 0, 4, 0}};

inline const mxrt_function_desc functions[] = {
    {"forward", 1, forwardInputs, 1, forwardOutputs, forward, 0, 0},
    {"grad", 2, gradInputs, 3, gradOutputs, grad, 0, 0},
    {"train_step", 3, trainInputs, 1, trainOutputs, trainStep, 128,
     MXRT_FUNCTION_UPDATES_STATE},
    {"states", 0, nullptr, 2, stateOutputs, readStates, 0, 0},
};
inline const mxrt_tensor_desc params[] = {
    {"w", MXRT_F32, 1, shapeCols, offsetof(Weights, w), cols * 4,
     MXRT_TENSOR_TRAINABLE},
    {"b", MXRT_F32, 1, shapeOne, offsetof(Weights, b), 4,
     MXRT_TENSOR_TRAINABLE},
    {"running_mean", MXRT_F32, 1, shapeCols, offsetof(Weights, runningMean),
     cols * 4, MXRT_TENSOR_AUX}};
inline const mxrt_tensor_desc states[] = {
    {"momentum_w", MXRT_F32, 1, shapeCols, 0, cols * 4, 0},
    {"momentum_b", MXRT_F32, 1, shapeOne, 0, 4, 0}};

/// The trainable model; `flags` 0 gives the same tables as an inference
/// model (which the runtime then refuses, since train_step updates state).
inline mxrt_model_desc desc() {
  return {MXRT_MODEL_ABI_VERSION,
          "linear",
          4,
          functions,
          3,
          params,
          reinterpret_cast<const uint8_t *>(&weights),
          sizeof(Weights),
          2,
          states,
          MXRT_MODEL_TRAINABLE,
          nullptr,
          0};
}

} // namespace mxrt_test::linear

namespace mxrt_test::halfscale {

// A trainable model with one float16 scalar parameter: y = x * scale over two
// float32s. Saved files use V3 records (a 0-d scalar is a none array in V2).

inline void forward(void *const *buffers, mxrt_exec_context *) {
  const auto *x = static_cast<const float *>(buffers[0]);
  auto *y = static_cast<float *>(buffers[1]);
  uint16_t bits = *static_cast<const uint16_t *>(buffers[2]);
  // Normal positive halves are all the tests use.
  float scale = std::ldexp(1.0f + float(bits & 0x3ff) / 1024.0f,
                           int((bits >> 10) & 0x1f) - 15);
  y[0] = x[0] * scale;
  y[1] = x[1] * scale;
}

inline const int64_t shape2[] = {2};
alignas(64) inline const uint16_t weights[32] = {0x3c00}; // 1.0
inline const mxrt_tensor_desc io[] = {{"x", MXRT_F32, 1, shape2, 0, 8, 0},
                                      {"y", MXRT_F32, 1, shape2, 0, 8, 0}};
inline const mxrt_function_desc functions[] = {
    {"forward", 1, &io[0], 1, &io[1], forward, 0, 0}};
inline const mxrt_tensor_desc params[] = {
    {"scale", MXRT_F16, 0, nullptr, 0, 2, MXRT_TENSOR_TRAINABLE}};

inline mxrt_model_desc desc() {
  return {MXRT_MODEL_ABI_VERSION,
          "halfscale",
          1,
          functions,
          1,
          params,
          reinterpret_cast<const uint8_t *>(weights),
          sizeof(weights),
          0,
          nullptr,
          MXRT_MODEL_TRAINABLE,
          nullptr,
          0};
}

} // namespace mxrt_test::halfscale

#endif // MXRT_TEST_TESTMODELS_H
