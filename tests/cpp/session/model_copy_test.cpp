// The IR keeps the ONNX model (modelToHost, input-name checks) without the bytes of
// the initializers its tensors hold: the weights are not held twice on the host.
#include "onnx/model.hpp"
#include "popart/builder.hpp"
#include "popart/dataflow.hpp"
#include "popart/devicemanager.hpp"
#include "popart/graph.hpp"
#include "popart/inputshapeinfo.hpp"
#include "popart/ir.hpp"
#include "popart/patterns.hpp"
#include "popart/session.hpp"
#include "popart/sessionoptions.hpp"
#include "popart/sgd.hpp"
#include "popart/stepio.hpp"
#include "popart/tensor.hpp"
#include <gtest/gtest.h>
#include <cstdio>
#include <cstring>
#include <filesystem>

using namespace popart;

namespace {

const std::vector<float> kW{1.f, -2.f, 3.f, -4.f, 5.f, -6.f};
const std::vector<float> kUnused{7.f, 8.f};

bool hasValues(const onnxpb::Tensor &t) {
  return !t.rawData.empty() || !t.floatData.empty() || !t.int32Data.empty() || !t.int64Data.empty() ||
         !t.doubleData.empty() || !t.uint64Data.empty() || !t.stringData.empty();
}

std::vector<float> floatsOf(const onnxpb::Tensor &t) {
  if (!t.floatData.empty()) return t.floatData;
  std::vector<float> v(t.rawData.size() / sizeof(float));
  std::memcpy(v.data(), t.rawData.data(), t.rawData.size());
  return v;
}

std::unique_ptr<TrainingSession> session() {
  auto b = Builder::create();
  TensorId x = b->addInputTensor(TensorInfo("FLOAT", Shape{2, 3}), "x");
  TensorId w = b->addInitializedInputTensor(TensorInfo("FLOAT", Shape{2, 3}), kW.data(), "w");
  b->addInitializedInputTensor(TensorInfo("FLOAT", Shape{2}), kUnused.data(), "unused");
  TensorId y = b->addOp("", "Mul", 11, {x, w}).at(0);
  TensorId loss = b->addOp("ai.graphcore", "L1", 1, {y}, 1, {{"lambda", 1.0f}, {"reduction", int64_t(0)}}).at(0);
  SGD sgd({{"defaultLearningRate", {0.1f, false}}, {"defaultMomentum", {0.9f, false}}});
  return TrainingSession::createFromOnnxModel(b->getModelProto(), DataFlow(1, std::vector<TensorId>{}), loss, sgd,
                                              DeviceManager::createDeviceManager().createCpuDevice(),
                                              InputShapeInfo(), SessionOptions(), Patterns());
}

} // namespace

TEST(ModelCopyTest, IrModelHoldsNoBytesOfImportedWeights) {
  auto s = session();
  const Ir &ir = s->getIr();
  const onnxpb::Model *m = ir.getModel();
  ASSERT_NE(m, nullptr);
  ASSERT_EQ(m->graph.initializer.size(), 2u);
  const auto &tensors = ir.getMainGraph().getTensors();
  for (const auto &init : m->graph.initializer) {
    const bool held = tensors.contains(init.name) && tensors.get(init.name)->hasTensorData();
    EXPECT_EQ(hasValues(init), !held) << init.name;  // exactly one copy of every initializer's values
    EXPECT_FALSE(init.dims.empty()) << init.name;     // names, types and shapes stay
  }
  EXPECT_FALSE(hasValues(m->graph.initializer[0]));  // w is a weight of the session
  EXPECT_EQ(m->graph.initializer[0].dims, (std::vector<int64_t>{2, 3}));
}

TEST(ModelCopyTest, ModelToHostWritesTrainedAndUntouchedInitializers) {
  auto s = session();
  s->prepareDevice();
  s->weightsFromHost();
  std::vector<float> x(6, 1.f);
  NDArrayWrapper<float> xa(x.data(), {2, 3});
  std::map<TensorId, IArray &> ins{{"x", xa}}, outs;
  StepIO io(ins, outs);
  s->run(io);
  const auto path = std::filesystem::temp_directory_path() / ("model_copy_test_" + std::to_string(::getpid()) + ".onnx");
  s->modelToHost(path.string());
  const onnxpb::Model saved = onnxpb::loadModelFile(path.string());
  std::filesystem::remove(path);
  std::map<std::string, std::vector<float>> values;
  for (const auto &init : saved.graph.initializer) values[init.name] = floatsOf(init);
  // d|x*w|/dw = sign(w) * x = sign(w); one SGD step with lr 0.1 (no velocity yet).
  std::vector<float> expected;
  for (float w : kW) expected.push_back(w - 0.1f * (w > 0 ? 1.f : -1.f));
  ASSERT_EQ(values["w"].size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_FLOAT_EQ(values["w"][i], expected[i]);
  EXPECT_EQ(values["unused"], kUnused);
}
