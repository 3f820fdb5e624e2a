// The IR preparation pipeline on graphs built op by op (no ONNX): each pass's
// effect on the graph, then a session created from the prepared IR.
#include "popart/dataflow.hpp"
#include "popart/devicemanager.hpp"
#include "popart/error.hpp"
#include "popart/graph.hpp"
#include "popart/ir.hpp"
#include "popart/op.hpp"
#include "popart/optimizer.hpp"
#include "popart/patterns.hpp"
#include "popart/session.hpp"
#include "popart/stepio.hpp"
#include "popart/tensor.hpp"
#include "transforms/pipeline.hpp"
#include "transforms/prune.hpp"
#include "transforms/separate_views.hpp"
#include <gtest/gtest.h>
#include <algorithm>
#include <fstream>

using namespace popart;

namespace {

const OperatorIdentifier relu{"ai.onnx", "Relu", 6};
const OperatorIdentifier add{"ai.onnx", "Add", 7};
const OperatorIdentifier mul{"ai.onnx", "Mul", 7};
const OperatorIdentifier reduceSum{"ai.onnx", "ReduceSum", 11};

const TensorInfo f23(DataType::FLOAT, {2, 3});
const std::vector<float> w0{0.f, .1f, -.2f, .3f, -.4f, .5f};
const std::vector<float> c1{1.f, 2.f, 3.f, 4.f, 5.f, 6.f};
const std::vector<float> c2{.5f, .5f, .5f, -10.f, .5f, .5f};
const std::vector<float> xv{-1.f, 2.f, -3.f, 4.f, 0.5f, -.25f};

Op *connect(Graph &g, const OperatorIdentifier &id, std::vector<TensorId> ins, const TensorId &out,
            Attributes attrs = Attributes()) {
  std::map<InIndex, TensorId> in;
  for (size_t i = 0; i < ins.size(); ++i) in[static_cast<InIndex>(i)] = ins[i];
  return g.createConnectedOp(id, in, {{0, out}}, attrs);
}

std::set<std::string> opTypes(const Graph &g) {
  std::set<std::string> out;
  for (const auto &[id, op] : g.getOps()) out.insert(op->opid.type);
  return out;
}

bool consumes(const Graph &g, const TensorId &id) {
  return g.getTensors().contains(id) && g.getTensor(id)->consumers.getTotal() > 0;
}

// z = Relu(Relu(x) + w + (c1 + c2)); `dead` = Relu(x) is never used.
std::shared_ptr<Ir> inferenceIr() {
  auto ir = std::make_shared<Ir>();
  Graph &g = ir->getMainGraph();
  g.getTensors().addStream("x", f23);
  g.getTensors().addVarInit("w", f23, w0.data());
  g.getTensors().addConstInit("c1", f23, c1.data());
  g.getTensors().addConstInit("c2", f23, c2.data());
  connect(g, add, {"c1", "c2"}, "cs");
  connect(g, relu, {"x"}, "a");
  connect(g, add, {"a", "w"}, "y");
  connect(g, add, {"y", "cs"}, "y2");
  connect(g, relu, {"y2"}, "z");
  connect(g, relu, {"x"}, "dead");
  ir->setDataFlow(DataFlow(1, {"z"}));
  return ir;
}

float expectedZ(size_t i) { return std::max(std::max(xv[i], 0.f) + w0[i] + c1[i] + c2[i], 0.f); }

std::shared_ptr<DeviceInfo> cpu() { return DeviceManager::createDeviceManager().createCpuDevice(); }

} // namespace

TEST(IrPipeline, PassesAreNamedAndOrdered) {
  std::vector<std::string> names;
  for (const IrPass &p : irPasses()) names.push_back(p.name);
  auto pos = [&](const std::string &n) {
    auto it = std::find(names.begin(), names.end(), n);
    EXPECT_NE(it, names.end()) << n;
    return it - names.begin();
  };
  EXPECT_LT(pos("patterns"), pos("constantFolding"));
  EXPECT_LT(pos("constantFolding"), pos("orderModifiers"));
  EXPECT_LT(pos("orderModifiers"), pos("autodiff"));
  EXPECT_LT(pos("autodiff"), pos("prune"));
  EXPECT_LT(pos("prune"), pos("hostCopyOps"));
  EXPECT_LT(pos("hostCopyOps"), pos("inplace"));
  EXPECT_LT(pos("inplace"), pos("checkAnchors"));
}

TEST(IrPipeline, ConstantFoldingFolds) {
  auto ir = inferenceIr();
  Graph &g = ir->getMainGraph();
  ASSERT_NE(g.getTensor("cs")->getProducerUnsafe(), nullptr);
  for (const IrPass &p : irPasses())
    if (p.name == "constantFolding") p.run(*ir);
  Tensor *cs = g.getTensor("cs");
  EXPECT_EQ(cs->getProducerUnsafe(), nullptr);
  EXPECT_EQ(cs->tensorType(), TensorType::Const);
  const float *d = reinterpret_cast<const float *>(cs->tensorData().data());
  for (size_t i = 0; i < 6; ++i) EXPECT_FLOAT_EQ(d[i], c1[i] + c2[i]);
  EXPECT_FALSE(consumes(g, "c1"));
  // The op reading the stream is not folded.
  EXPECT_NE(g.getTensor("a")->getProducerUnsafe(), nullptr);
}

TEST(IrPipeline, PrunePrunesAndInplacingInplaces) {
  auto ir = inferenceIr();
  Graph &g = ir->getMainGraph();
  EXPECT_TRUE(g.getTensors().contains("dead"));
  EXPECT_EQ(opTypes(g).count("ReluInplace"), 0u);
  runIrPipeline(*ir);
  EXPECT_TRUE(ir->isPrepared());
  EXPECT_FALSE(g.getTensors().contains("dead"));
  EXPECT_GE(opTypes(g).count("ReluInplace"), 1u);
  EXPECT_THROW(runIrPipeline(*ir), error);
}

// y = x * c1; ExpInplace(y) (output unused); z = y + c1 is read: the in-place op stays, since z reads the
// y it changed; ExpInplace(d) of a tensor nothing else reads goes.
TEST(IrPipeline, PruneKeepsInPlaceChangesOfNeededTensors) {
  const OperatorIdentifier expInplace{"ai.graphcore", "ExpInplace", 1};
  auto ir = std::make_shared<Ir>();
  Graph &g = ir->getMainGraph();
  g.getTensors().addStream("x", f23);
  g.getTensors().addConstInit("c1", f23, c1.data());
  connect(g, mul, {"x", "c1"}, "y");
  Op *changeY = connect(g, expInplace, {"y"}, "e");
  Op *readY = connect(g, add, {"y", "c1"}, "z");
  g.addTopoCon(changeY, readY);
  connect(g, mul, {"x", "c1"}, "d");
  connect(g, expInplace, {"d"}, "de");
  g.markAsOutput("z");
  prune(g);
  EXPECT_TRUE(g.getTensors().contains("e"));
  EXPECT_FALSE(g.getTensors().contains("de"));
  EXPECT_FALSE(g.getTensors().contains("d"));
}

// y = Detach(x) shares x's memory; ExpInplace(y) changes y: separateViews gives y its own memory (a Nop
// copy) unless the Detach is marked as a view.
TEST(IrPipeline, SeparateViewsCopiesAliasesOfChangedTensors) {
  const OperatorIdentifier detach{"ai.graphcore", "Detach", 1};
  const OperatorIdentifier expInplace{"ai.graphcore", "ExpInplace", 1};
  for (int64_t view : {0, 1}) {
    auto ir = std::make_shared<Ir>();
    Graph &g = ir->getMainGraph();
    g.getTensors().addVarInit("x", f23, w0.data());
    Attributes attrs;
    if (view) attrs.setAttribute("view", view);
    Op *d = connect(g, detach, {"x"}, "y", attrs);
    connect(g, expInplace, {"y"}, "e");
    separateViews(g);
    Op *producer = g.getTensor("y")->getProducerUnsafe();
    if (view) {
      EXPECT_EQ(producer, d);
    } else {
      ASSERT_NE(producer, d);
      EXPECT_EQ(producer->opid.type, "Nop");
      EXPECT_EQ(producer->inTensor(0), d->outTensor(0));
      EXPECT_EQ(d->outTensor(0)->info, f23);
    }
  }
}

TEST(IrPipeline, InplacingOffWithoutTheInPlacePattern) {
  auto ir = inferenceIr();
  ir->setPatterns(Patterns(PatternsLevel::NoPatterns).enableRuntimeAsserts(false));
  runIrPipeline(*ir);
  EXPECT_EQ(opTypes(ir->getMainGraph()).count("ReluInplace"), 0u);
  EXPECT_EQ(opTypes(ir->getMainGraph()).count("Relu"), 1u);
}

TEST(IrPipeline, MisspeltAnchorIsNamed) {
  auto ir = inferenceIr();
  ir->setDataFlow(DataFlow(1, {"zz"}));
  try {
    runIrPipeline(*ir);
    FAIL();
  } catch (const error &e) {
    EXPECT_NE(std::string(e.what()).find("'zz'"), std::string::npos) << e.what();
  }
}

TEST(IrPipeline, InferenceSessionFromIr) {
  auto ir = inferenceIr();
  auto s = InferenceSession::createFromIr(ir, cpu(), "fromIr");
  EXPECT_TRUE(ir->isPrepared());
  EXPECT_EQ(&s->getIr(), ir.get());
  s->prepareDevice();
  std::vector<float> x = xv, z(6, -99.f);
  NDArrayWrapper<float> xa(x.data(), f23), za(z.data(), f23);
  StepIO io({{"x", xa}}, {{"z", za}});
  s->run(io);
  for (size_t i = 0; i < 6; ++i) EXPECT_FLOAT_EQ(z[i], expectedZ(i)) << i;
  // Running twice gives the same values (the folded constant is not updated in place).
  std::fill(z.begin(), z.end(), -99.f);
  s->run(io);
  for (size_t i = 0; i < 6; ++i) EXPECT_FLOAT_EQ(z[i], expectedZ(i)) << i;
  try {
    s->modelToHost("/tmp/never_written.onnx");
    FAIL();
  } catch (const error &e) {
    EXPECT_NE(std::string(e.what()).find("no ONNX model"), std::string::npos) << e.what();
  }
}

TEST(IrPipeline, SessionFromPreparedIrDoesNotPrepareAgain) {
  auto ir = inferenceIr();
  runIrPipeline(*ir);
  const auto ops = ir->getMainGraph().getOps().size();
  auto s = InferenceSession::createFromIr(ir, cpu());
  EXPECT_EQ(ir->getMainGraph().getOps().size(), ops);
}

TEST(IrPipeline, BadIrIsRefused) {
  EXPECT_THROW(InferenceSession::createFromIr(nullptr, cpu()), error);
  EXPECT_THROW(InferenceSession::createFromIr(inferenceIr(), nullptr), error);
  EXPECT_THROW(TrainingSession::createFromIr(inferenceIr(), cpu()), error);  // no optimizer
  auto training = inferenceIr();
  training->setOptimizer(ConstSGD(0.1f));
  EXPECT_THROW(InferenceSession::createFromIr(training, cpu()), error);
  EXPECT_THROW(TrainingSession::createFromIr(training, cpu()), error);  // no final loss
}

// loss = sum(x * w): autodiff adds grad ops, SGD updates w by -lr * x.
TEST(IrPipeline, AutodiffAndTrainingSessionFromIr) {
  auto ir = std::make_shared<Ir>();
  Graph &g = ir->getMainGraph();
  g.getTensors().addStream("x", f23);
  g.getTensors().addVarInit("w", f23, w0.data());
  connect(g, mul, {"x", "w"}, "y");
  Attributes keep;
  keep.setAttribute("keepdims", Attributes::Int(0));
  connect(g, reduceSum, {"y"}, "loss", keep);
  ir->setFinalLossId("loss");
  ir->setDataFlow(DataFlow(1, {"loss"}));
  const auto forwardOps = g.getOps().size();
  const float lr = 0.25f;
  const ConstSGD sgd(lr);
  auto s = TrainingSession::createFromIr(ir, cpu(), "train", &sgd);
  bool hasGrad = false;
  for (const auto &t : opTypes(g)) hasGrad = hasGrad || t.find("Grad") != std::string::npos;
  EXPECT_GT(g.getOps().size(), forwardOps);
  EXPECT_TRUE(hasGrad || g.getOps().size() > forwardOps + 1);
  s->prepareDevice();
  std::vector<float> x = xv, loss(1, 0.f);
  NDArrayWrapper<float> xa(x.data(), f23), la(loss.data(), TensorInfo(DataType::FLOAT, {}));
  StepIO io({{"x", xa}}, {{"loss", la}});
  s->run(io);
  float expectedLoss = 0;
  for (size_t i = 0; i < 6; ++i) expectedLoss += xv[i] * w0[i];
  EXPECT_NEAR(loss[0], expectedLoss, 1e-5f);
  s->weightsToHost();
  std::vector<float> w(6);
  WeightsIO wio;
  wio.insert("w", {w.data(), f23});
  s->readWeights(wio);
  for (size_t i = 0; i < 6; ++i) EXPECT_NEAR(w[i], w0[i] - lr * xv[i], 1e-6f) << i;
}
