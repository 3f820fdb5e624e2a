// Custom transforms registered through popart::Transform and applied where
// SessionOptions::experimentalSettings.customTransformApplierSettings names
// them: the graph they see at each checkpoint, their effect on the results,
// and errors for unknown checkpoints and names.
#include "popart/builder.hpp"
#include "popart/dataflow.hpp"
#include "popart/devicemanager.hpp"
#include "popart/error.hpp"
#include "popart/graph.hpp"
#include "popart/inputshapeinfo.hpp"
#include "popart/op.hpp"
#include "popart/optimizer.hpp"
#include "popart/patterns.hpp"
#include "popart/session.hpp"
#include "popart/sessionoptions.hpp"
#include "popart/stepio.hpp"
#include "popart/tensor.hpp"
#include "popart/transforms/transform.hpp"
#include <gtest/gtest.h>
#include <functional>

using namespace popart;

namespace {

/// Replaces every Relu of the graph by a Neg (a visible change of the results).
class ReluToNeg final : public Transform {
public:
  bool apply(Graph &g) const override {
    std::vector<OpId> relus;
    for (const auto &[id, op] : g.getOps())
      if (op->opid.type == "Relu") relus.push_back(id);
    for (OpId id : relus) {
      Op *op = g.getOp(id);
      TensorId in = op->inId(0), out = op->outId(0);
      g.eraseOp(id);
      g.createConnectedOp({"ai.onnx", "Neg", 6}, {{0, in}}, {{0, out}}, Attributes());
    }
    return !relus.empty();
  }
  std::size_t getId() const override { return std::hash<std::string>()("TestReluToNeg"); }
  std::string getName() const override { return "TestReluToNeg"; }
};

/// Records how many gradient tensors the graph has each time it runs.
std::vector<size_t> gradientCounts;
class GradientCounter final : public Transform {
public:
  bool apply(Graph &g) const override {
    size_t n = 0;
    for (const auto &id : g.getTensors().getAllTensorIds()) n += id.rfind(reservedGradientPrefix(), 0) == 0;
    gradientCounts.push_back(n);
    return false;
  }
  std::size_t getId() const override { return std::hash<std::string>()("TestGradientCounter"); }
  std::string getName() const override { return "TestGradientCounter"; }
};

const bool registered = Transform::registerTransform(new ReluToNeg) && Transform::registerTransform(new GradientCounter);

struct Model {
  std::string proto;
  TensorId x, y, loss;
};

Model model() {
  auto b = Builder::create();
  Model m;
  std::vector<float> w{1.f, 2.f, 3.f};
  m.x = b->addInputTensor(TensorInfo("FLOAT", Shape{3}), "x");
  auto wid = b->addInitializedInputTensor(TensorInfo("FLOAT", Shape{3}), w.data(), "w");
  m.y = b->aiOnnxOpset11().relu({b->aiOnnxOpset11().mul({m.x, wid})});
  m.loss = b->addOp("ai.graphcore", "L1", 1, {m.y}, 1, {{"lambda", 1.0f}, {"reduction", std::string("Sum")}}).at(0);
  b->addOutputTensor(m.y);
  m.proto = b->getModelProto();
  return m;
}

std::vector<float> infer(const SessionOptions &opts) {
  Model m = model();
  auto s = InferenceSession::createFromOnnxModel(m.proto, DataFlow(1, {m.y}),
                                                 DeviceManager::createDeviceManager().createCpuDevice(),
                                                 InputShapeInfo(), opts, Patterns());
  s->prepareDevice();
  std::vector<float> x{1.f, -1.f, 2.f}, y(3);
  NDArrayWrapper<float> xw(x.data(), {3}), yw(y.data(), {3});
  std::map<TensorId, IArray &> ins{{m.x, xw}}, outs{{m.y, yw}};
  StepIO io(ins, outs);
  s->run(io);
  return y;
}

} // namespace

TEST(CustomTransforms, AppliedWhereTheSettingsSay) {
  ASSERT_TRUE(registered);
  EXPECT_EQ(infer(SessionOptions()), (std::vector<float>{1.f, 0.f, 6.f}));
  SessionOptions opts;
  opts.experimentalSettings.customTransformApplierSettings = {{"Fwd0", {"TestReluToNeg"}}};
  EXPECT_EQ(infer(opts), (std::vector<float>{-1.f, 2.f, -6.f}));
}

TEST(CustomTransforms, CheckpointsSeeThePipelineStages) {
  gradientCounts.clear();
  SessionOptions opts;
  opts.experimentalSettings.customTransformApplierSettings = {
      {"Fwd0", {"TestGradientCounter"}}, {"Bwd0", {"TestGradientCounter"}}, {"Final", {"TestGradientCounter"}}};
  Model m = model();
  SGD sgd({{"defaultLearningRate", {0.1f, true}}});
  auto s = TrainingSession::createFromOnnxModel(m.proto, DataFlow(1, {m.loss}), m.loss, sgd,
                                                DeviceManager::createDeviceManager().createCpuDevice(),
                                                InputShapeInfo(), opts, Patterns());
  ASSERT_EQ(gradientCounts.size(), 3u);
  EXPECT_EQ(gradientCounts[0], 0u);  // forward graph only
  EXPECT_GT(gradientCounts[1], 0u);  // after autodiff
  EXPECT_GT(gradientCounts[2], 0u);
}

TEST(CustomTransforms, UnknownCheckpointOrNameIsAnError) {
  SessionOptions bad;
  bad.experimentalSettings.customTransformApplierSettings = {{"Fwd9", {"Prune"}}};
  EXPECT_THROW(infer(bad), error);
  bad.experimentalSettings.customTransformApplierSettings = {{"Fwd0", {"NoSuchTransform"}}};
  try {
    infer(bad);
    FAIL() << "expected an error";
  } catch (const error &e) {
    EXPECT_NE(std::string(e.what()).find("NoSuchTransform"), std::string::npos);
  }
  EXPECT_THROW(Transform::registerTransform(new ReluToNeg), error);
  EXPECT_NE(Transform::findByName("Prune"), nullptr);
}
