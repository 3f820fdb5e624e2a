// A C++ program written for PopART (its headers, per-opset Builder classes,
// ConstVoidData/DebugContext forms, optimizer headers) compiles and runs here;
// the numbers are checked against values computed by hand.
#include <popart/adam.hpp>
#include <popart/adaptive.hpp>
#include <popart/builder.hpp>
#include <popart/dataflow.hpp>
#include <popart/debugcontext.hpp>
#include <popart/devicemanager.hpp>
#include <popart/error.hpp>
#include <popart/ndarraywrapper.hpp>
#include <popart/operatoridentifier.hpp>
#include <popart/opserialiser.hpp>
#include <popart/popx/opxmanager.hpp>
#include <popart/session.hpp>
#include <popart/sessionoptions.hpp>
#include <popart/sgd.hpp>
#include <popart/stepio.hpp>
#include <popart/tensornames.hpp>
#include <popart/voiddata.hpp>
#include <gtest/gtest.h>
#include <cmath>
#include <map>
#include <vector>

namespace {

std::vector<float> runInference(const std::string &proto, const popart::TensorId &in, std::vector<float> x,
                                const popart::TensorId &out, size_t outElements) {
  auto dataFlow = popart::DataFlow(1, {{out, popart::AnchorReturnType("All")}});
  auto device = popart::DeviceManager::createDeviceManager().createCpuDevice();
  auto session = popart::InferenceSession::createFromOnnxModel(proto, dataFlow, device);
  session->prepareDevice();
  std::vector<float> result(outElements);
  popart::NDArrayWrapper<float> xw(x.data(), {static_cast<int64_t>(x.size())});
  popart::NDArrayWrapper<float> rw(result.data(), {static_cast<int64_t>(outElements)});
  std::map<popart::TensorId, popart::IArray &> inputs = {{in, xw}};
  std::map<popart::TensorId, popart::IArray &> anchors = {{out, rw}};
  popart::StepIO stepio(inputs, anchors);
  session->run(stepio);
  return result;
}

} // namespace

TEST(PopartProgramTest, Opset11BuilderWithConstVoidData) {
  auto builder = popart::Builder::create();
  auto aiOnnx = builder->aiOnnxOpset11();
  popart::TensorInfo info{"FLOAT", std::vector<int64_t>{4}};
  auto x = builder->addInputTensor(info, "x");
  std::vector<float> wData{1.f, -2.f, 3.f, -4.f};
  popart::ConstVoidData wcv = {wData.data(), info};
  auto w = builder->addInitializedInputTensor(wcv, "w");
  std::vector<float> cData{0.5f, 0.5f, 0.5f, 0.5f};
  auto c = aiOnnx.constant(popart::ConstVoidData(cData.data(), info), false, "half");
  auto prod = aiOnnx.mul({x, w}, popart::DebugContext("prod"));
  auto r = aiOnnx.relu({prod}, "relu");
  auto y = aiOnnx.add({r, c});
  auto parts = aiOnnx.split({y}, 2, 0, {1, 3});
  ASSERT_EQ(parts.size(), 2u);
  auto sum = aiOnnx.reducesum({parts[1]}, std::vector<int64_t>{0}, 0);
  auto cast = aiOnnx.cast({sum}, "FLOAT");
  builder->addOutputTensor(cast);
  EXPECT_EQ(builder->getTensorShape(cast), std::vector<int64_t>{});
  auto got = runInference(builder->getModelProto(), x, {1.f, 1.f, 1.f, 1.f}, cast, 1);
  // relu(x*w) + 0.5 = [1.5, 0.5, 3.5, 0.5]; the sum of the last three is 4.5.
  EXPECT_FLOAT_EQ(got[0], 4.5f);
}

TEST(PopartProgramTest, OlderOpsetsKeepTheirSignatures) {
  auto builder = popart::Builder::create();
  auto aiOnnx = builder->aiOnnxOpset9();
  auto x = builder->addInputTensor(popart::TensorInfo("FLOAT", std::vector<int64_t>{2, 3}), "x");
  auto t = aiOnnx.transpose({x}, {1, 0});
  auto clipped = aiOnnx.clip({t}, 1.0f, 0.0f);  // opset 6..10: clip(args, max, min)
  auto flat = aiOnnx.flatten({clipped}, 0);
  builder->addOutputTensor(flat);
  auto got = runInference(builder->getModelProto(), x, {-1.f, 0.25f, 2.f, 0.5f, 3.f, 0.75f}, flat, 6);
  std::vector<float> want{0.f, 0.5f, 0.25f, 1.f, 1.f, 0.75f};
  EXPECT_EQ(got, want);
  EXPECT_EQ(aiOnnx.getOpsetVersion(), 9);
}

TEST(PopartProgramTest, MixingOpsetsIsRefused) {
  auto builder = popart::Builder::create();
  auto x = builder->addInputTensor(popart::TensorInfo("FLOAT", std::vector<int64_t>{2}));
  builder->aiOnnxOpset11().relu({x});
  EXPECT_THROW(builder->aiOnnxOpset9().relu({x}), popart::error);
}

TEST(PopartProgramTest, MissingDataIsAnError) {
  auto builder = popart::Builder::create();
  popart::ConstVoidData empty;
  empty.info = popart::TensorInfo("FLOAT", std::vector<int64_t>{3});
  EXPECT_THROW(builder->addInitializedInputTensor(empty, "w"), popart::error);
}

TEST(PopartProgramTest, OptimizerHeadersAndPrefixes) {
  popart::SGD sgd({{"defaultLearningRate", {0.1f, false}}, {"defaultMomentum", {0.9f, true}}});
  EXPECT_FALSE(sgd.learningRates().getDefault().isConst());
  popart::Adam adam({{"defaultLearningRate", {0.01f, true}}}, popart::AdamMode::Lamb);
  EXPECT_EQ(adam.getMode(), popart::AdamMode::Lamb);
  popart::Adaptive ada({}, popart::AdaptiveMode::RMSProp, popart::WeightDecayMode::Decay,
                       popart::DataType::UNDEFINED, popart::DataType::UNDEFINED, popart::DataType::UNDEFINED,
                       popart::DataType::UNDEFINED, true, {popart::ClipNormSettings::clipAllWeights(1.0f)});
  EXPECT_TRUE(ada.rmspropTFVariant());
  EXPECT_EQ(ada.getClipNormSettings().size(), 1u);
  EXPECT_EQ(popart::reservedAccl1Prefix(), "Accl1___");
  EXPECT_EQ(popart::reservedDefaultAdamBeta1Prefix(), "adamBeta1___default___");
  popart::OperatorIdentifier relu{"ai.onnx", "Relu", 6};
  EXPECT_EQ(relu.type, "Relu");
}

TEST(PopartProgramTest, TrainingWithGraphcoreOpsetLoss) {
  auto builder = popart::Builder::create();
  auto aiOnnx = builder->aiOnnxOpset11();
  auto aiGraphcore = builder->aiGraphcoreOpset1();
  popart::TensorInfo info{"FLOAT", std::vector<int64_t>{3}};
  auto x = builder->addInputTensor(info, "x");
  std::vector<float> wData{1.f, 2.f, 3.f};
  auto w = builder->addInitializedInputTensor(popart::ConstVoidData(wData.data(), info), "w");
  auto y = aiOnnx.mul({x, w});
  auto loss = aiGraphcore.l1loss({y}, 1.0f, popart::ReductionType::Sum, "loss");
  auto scaled = aiGraphcore.scale({y}, 2.0f);
  builder->addOutputTensor(scaled);
  popart::SGD sgd({{"defaultLearningRate", {0.1f, true}}});
  auto session = popart::TrainingSession::createFromOnnxModel(
      builder->getModelProto(), popart::DataFlow(1, {{scaled, popart::AnchorReturnType("All")}}), loss, sgd,
      popart::DeviceManager::createDeviceManager().createCpuDevice());
  session->prepareDevice();
  session->weightsFromHost();
  std::vector<float> xData{1.f, -1.f, 2.f}, out(3);
  popart::NDArrayWrapper<float> xw(xData.data(), {3}), ow(out.data(), {3});
  std::map<popart::TensorId, popart::IArray &> inputs = {{x, xw}}, anchors = {{scaled, ow}};
  popart::StepIO stepio(inputs, anchors);
  session->run(stepio);
  EXPECT_EQ(out, (std::vector<float>{2.f, -4.f, 12.f}));
  // d|x*w|/dw = sign(x*w) * x = [1, 1, 2]; w' = w - 0.1 * that.
  std::vector<float> trained(3);
  popart::WeightsIO weights;
  weights.insert(w, {trained.data(), info});
  session->weightsToHost();
  session->readWeights(weights);
  EXPECT_FLOAT_EQ(trained[0], 0.9f);
  EXPECT_FLOAT_EQ(trained[1], 1.9f);
  EXPECT_FLOAT_EQ(trained[2], 2.8f);
}
