// C++ optimizers: dictionary construction, accessors, replacement rules, and
// closed-form training checks. The model w -> Relu -> L1(Sum, lambda 1) has
// gradient 1 for every positive w, so Adam's bias-corrected step is lr/(1+eps),
// AdaGrad's t-th step lr/(sqrt(t)+eps), Lamb's lr*|w|/sqrt(n).
#include "popart/adam.hpp"
#include "popart/adaptive.hpp"
#include "popart/builder.hpp"
#include "popart/dataflow.hpp"
#include "popart/devicemanager.hpp"
#include "popart/error.hpp"
#include "popart/inputshapeinfo.hpp"
#include "popart/patterns.hpp"
#include "popart/session.hpp"
#include "popart/sessionoptions.hpp"
#include "popart/stepio.hpp"
#include <gtest/gtest.h>
#include <cmath>

using namespace popart;

namespace {

const std::vector<float> kW0{1.0f, 2.0f, 3.0f, 4.0f};

std::unique_ptr<TrainingSession> train(const Optimizer &opt) {
  auto b = Builder::create();
  TensorId w = b->addInitializedInputTensor(TensorInfo("FLOAT", Shape{4}), kW0.data(), "w");
  TensorId r = b->addOp("", "Relu", 11, {w}).at(0);
  TensorId loss = b->addOp("ai.graphcore", "L1", 1, {r}, 1, {{"lambda", 1.0f}, {"reduction", int64_t(0)}}).at(0);
  auto s = TrainingSession::createFromOnnxModel(b->getModelProto(), DataFlow(1, std::vector<TensorId>{}), loss, opt,
                                                DeviceManager::createDeviceManager().createCpuDevice(),
                                                InputShapeInfo(), SessionOptions(), Patterns());
  s->prepareDevice();
  s->weightsFromHost();
  return s;
}

std::vector<float> step(TrainingSession &s) {
  StepIO io({}, {});
  s.run(io);
  s.weightsToHost();
  std::vector<float> w(4);
  WeightsIO read;
  read.insert("w", {w.data(), TensorInfo("FLOAT", Shape{4})});
  s.readWeights(read);
  return w;
}

} // namespace

TEST(OptimizerTest, AdamDictionaryAndAccessors) {
  Adam a({{"defaultLearningRate", {0.01f, false}}, {"defaultBeta2", {0.9f, true}}, {"maxWeightNorm", {2.f, true}}},
         AdamMode::Lamb, WeightDecayMode::L2Regularization);
  EXPECT_FLOAT_EQ(a.learningRates().getDefault().val(), 0.01f);
  EXPECT_FALSE(a.learningRates().getDefault().isConst());
  EXPECT_FLOAT_EQ(a.beta1s().getDefault().val(), 0.9f);
  EXPECT_FLOAT_EQ(a.beta2s().getDefault().val(), 0.9f);
  EXPECT_FLOAT_EQ(a.maxWeightNorms().getDefault().val(), 2.f);
  a.insertSpecific("w", {{"beta1", {0.5f, true}}});
  EXPECT_FLOAT_EQ(a.beta1s().get("w").val(), 0.5f);
  VarUpdateSpec spec = a.varUpdate("w");
  ASSERT_EQ(spec.state.size(), 3u);
  EXPECT_EQ(spec.state[0].name, "Accl1___w");
  EXPECT_EQ(spec.state[2].name, "Step___w");
  EXPECT_TRUE(spec.state[2].scalar);
  EXPECT_THROW(Adam({{"defaultGamma", {1.f, true}}}), error);
}

TEST(OptimizerTest, ReplacementRules) {
  Adam a({{"defaultLearningRate", {0.01f, false}}});
  EXPECT_NO_THROW(a.validReplacement(Adam({{"defaultLearningRate", {0.02f, false}}})));
  EXPECT_THROW(a.validReplacement(Adam({{"defaultLearningRate", {0.02f, true}}})), error);
  EXPECT_THROW(a.validReplacement(Adam({{"defaultLearningRate", {0.01f, false}}}, AdamMode::AdaMax)), error);
  EXPECT_THROW(a.validReplacement(Adaptive({{"defaultLearningRate", {0.01f, false}}})), error);
  Adaptive r({}, AdaptiveMode::RMSProp);
  EXPECT_THROW(r.validReplacement(Adaptive({}, AdaptiveMode::AdaDelta)), error);
}

TEST(OptimizerTest, AdamClosedForm) {
  auto s = train(Adam({{"defaultLearningRate", {0.1f, false}}, {"defaultEps", {0.f, true}}}));
  for (int t = 1; t <= 3; ++t) {
    auto w = step(*s);
    for (size_t i = 0; i < 4; ++i) EXPECT_NEAR(w[i], kW0[i] - 0.1f * t, 1e-5f);
  }
}

TEST(OptimizerTest, LambClosedForm) {
  auto s = train(Adam({{"defaultLearningRate", {0.1f, true}}, {"defaultEps", {0.f, true}}}, AdamMode::Lamb));
  auto w = step(*s);
  float norm = std::sqrt(1.f + 4.f + 9.f + 16.f);  // |u| = sqrt(4) = 2
  for (size_t i = 0; i < 4; ++i) EXPECT_NEAR(w[i], kW0[i] - 0.1f * norm / 2.f, 1e-5f);
}

TEST(OptimizerTest, AdaGradClosedForm) {
  auto s = train(Adaptive({{"defaultLearningRate", {0.1f, true}}, {"defaultEps", {0.f, true}}}, AdaptiveMode::AdaGrad));
  float expected = 0;
  for (int t = 1; t <= 3; ++t) {
    expected += 0.1f / std::sqrt(float(t));
    auto w = step(*s);
    for (size_t i = 0; i < 4; ++i) EXPECT_NEAR(w[i], kW0[i] - expected, 1e-5f);
  }
}

TEST(OptimizerTest, SgdClipAllWeights) {
  // |g| = 2 > maxNorm 0.5: every gradient is scaled by 0.25.
  auto s = train(SGD({{"defaultLearningRate", {0.1f, true}}}, {ClipNormSettings::clipAllWeights(0.5f)}));
  auto w = step(*s);
  for (size_t i = 0; i < 4; ++i) EXPECT_NEAR(w[i], kW0[i] - 0.025f, 1e-6f);
}
