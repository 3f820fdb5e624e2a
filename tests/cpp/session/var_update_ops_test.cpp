// The var-update ops of PopXL built op by op in C++ (no ONNX, no Python) and run by a session made
// from the Ir: the variable keeps each run's update, hyper-parameters come from attributes or tensors.
#include "popart/dataflow.hpp"
#include "popart/devicemanager.hpp"
#include "popart/error.hpp"
#include "popart/graph.hpp"
#include "popart/ir.hpp"
#include "popart/session.hpp"
#include "popart/stepio.hpp"
#include <gtest/gtest.h>
#include <cmath>

using namespace popart;

namespace {

const TensorInfo f3(DataType::FLOAT, {3});
const TensorInfo scalar(DataType::FLOAT, {});

OperatorIdentifier internal(const std::string &type) { return {"ai.graphcore", type, 1}; }

std::shared_ptr<DeviceInfo> cpu() { return DeviceManager::createDeviceManager().createCpuDevice(); }

/// Runs `ir` `runs` times feeding x (and f when given); returns the anchor `out` after each run.
std::vector<std::vector<float>> runAll(const std::shared_ptr<Ir> &ir, const std::string &out, int runs,
                                       std::vector<float> x, std::vector<float> f = {}) {
  auto s = InferenceSession::createFromIr(ir, cpu());
  s->prepareDevice();
  s->weightsFromHost();
  std::vector<std::vector<float>> res;
  for (int r = 0; r < runs; ++r) {
    std::vector<float> o(3, -99.f);
    float fv = f.empty() ? 0.f : f[static_cast<size_t>(r)];
    NDArrayWrapper<float> xa(x.data(), f3), oa(o.data(), f3), fa(&fv, scalar);
    std::map<TensorId, IArray &> ins{{"x", xa}};
    if (!f.empty()) ins.emplace("f", fa);
    StepIO io(ins, {{out, oa}});
    s->run(io);
    res.push_back(o);
  }
  return res;
}

std::shared_ptr<Ir> accumulateIr(int64_t type, bool factorTensor) {
  auto ir = std::make_shared<Ir>();
  Graph &g = ir->getMainGraph();
  const std::vector<float> a0{1.f, 2.f, 3.f};
  g.getTensors().addVarInit("a", f3, a0.data());
  g.getTensors().addStream("x", f3);
  std::map<InIndex, TensorId> ins{{0, "a"}, {1, "x"}};
  Attributes attrs;
  attrs.setAttribute("type", type);
  if (factorTensor) {
    g.getTensors().addStream("f", scalar);
    ins[2] = "f";
  } else {
    attrs.setAttribute("factor", 0.5f);
  }
  g.createConnectedOp(internal("Accumulate"), ins, {{0, "a1"}}, attrs);
  ir->setDataFlow(DataFlow(1, {"a1"}));
  return ir;
}

} // namespace

TEST(VarUpdateOps, DampenedAddWithAFloatFactorAccumulatesAcrossRuns) {
  auto res = runAll(accumulateIr(1, false), "a1", 2, {2.f, 4.f, 6.f});
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_FLOAT_EQ(res[0][i], float(i + 1) + 0.5f * float(2 * (i + 1)));
    EXPECT_FLOAT_EQ(res[1][i], float(i + 1) + 2 * 0.5f * float(2 * (i + 1)));
  }
}

TEST(VarUpdateOps, MovingAverageReadsItsFactorTensorEveryRun) {
  auto res = runAll(accumulateIr(5, true), "a1", 2, {10.f, 10.f, 10.f}, {0.5f, 0.0f});
  EXPECT_FLOAT_EQ(res[0][0], 0.5f * 1 + 0.5f * 10);  // f = 0.5
  EXPECT_FLOAT_EQ(res[1][0], 10.f);                  // f = 0: the updater replaces the value
}

TEST(VarUpdateOps, BadTypeAndShapeNameTheInput) {
  auto ir = std::make_shared<Ir>();
  Graph &g = ir->getMainGraph();
  const std::vector<float> a0{1.f, 2.f, 3.f};
  g.getTensors().addVarInit("a", f3, a0.data());
  g.getTensors().addStream("x2", TensorInfo(DataType::FLOAT, {2}));
  Attributes attrs;
  try {
    g.createConnectedOp(internal("Accumulate"), {{0, "a"}, {1, "x2"}}, {{0, "a1"}}, attrs);
    FAIL();
  } catch (const error &e) {
    EXPECT_NE(std::string(e.what()).find("updater 'x2' has shape [2]"), std::string::npos) << e.what();
  }
  attrs.setAttribute("type", int64_t{42});
  EXPECT_THROW(g.createConnectedOp(internal("Accumulate"), {{0, "a"}, {1, "a"}}, {{0, "a2"}}, attrs), error);
}

TEST(VarUpdateOps, AdamUpdaterIncrementsTheStepAndCorrectsBias) {
  auto ir = std::make_shared<Ir>();
  Graph &g = ir->getMainGraph();
  const std::vector<float> m0{0.1f, -0.2f, 0.3f}, v0{0.04f, 0.09f, 0.16f};
  const float t0 = 0.f;
  g.getTensors().addVarInit("m", f3, m0.data());
  g.getTensors().addVarInit("v", f3, v0.data());
  g.getTensors().addVarInit("t", scalar, &t0);
  g.getTensors().addStream("x", f3);  // unused input of runAll
  Attributes attrs;
  attrs.setAttribute("mode", int64_t{0});  // Adam
  attrs.setAttribute("beta1", 0.9f);
  attrs.setAttribute("beta2", 0.999f);
  attrs.setAttribute("epsilon", 1e-6f);
  g.createConnectedOp(internal("AdamUpdater"), {{1, "m"}, {2, "v"}, {3, "t"}}, {{0, "u"}}, attrs);
  ir->setDataFlow(DataFlow(1, {"u"}));
  auto res = runAll(ir, "u", 2, {0.f, 0.f, 0.f});
  for (int r = 0; r < 2; ++r)
    for (size_t i = 0; i < 3; ++i) {
      const double t = r + 1;
      const double mh = m0[i] / (1 - std::pow(0.9, t)), vh = v0[i] / (1 - std::pow(0.999, t));
      EXPECT_NEAR(res[static_cast<size_t>(r)][i], mh / (std::sqrt(vh) + 1e-6), 1e-5) << r << " " << i;
    }
}
