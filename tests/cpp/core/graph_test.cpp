// Graph construction, scheduling, folding, pruning and in-placing, without ONNX.
#include "cpu/memory_plan.hpp"
#include "popart/dataflow.hpp"
#include "popart/error.hpp"
#include "popart/graph.hpp"
#include "popart/ir.hpp"
#include "popart/opmanager.hpp"
#include "popart/tensor.hpp"
#include "transforms/constfold.hpp"
#include "transforms/host_copy_ops.hpp"
#include "transforms/inplace.hpp"
#include "transforms/order_modifiers.hpp"
#include "transforms/prune.hpp"
#include <gtest/gtest.h>
#include <unordered_set>

using namespace popart;

namespace {

const OperatorIdentifier relu{"ai.onnx", "Relu", 6};

Op *addRelu(Graph &g, const TensorId &in, const TensorId &out) {
  return g.createConnectedOp(relu, {{0, in}}, {{0, out}}, Attributes());
}

struct Chain {
  Ir ir;
  Graph &g = ir.getMainGraph();
  Chain() {
    g.getTensors().addStream("x", TensorInfo(DataType::FLOAT, {4, 8}));
    addRelu(g, "x", "a");
    addRelu(g, "a", "b");
    addRelu(g, "b", "c");
    ir.setDataFlow(DataFlow(1, {"c"}));
  }
};

} // namespace

TEST(Graph, SetupInfersShapes) {
  Chain c;
  EXPECT_EQ(c.g.getTensor("c")->info, TensorInfo(DataType::FLOAT, {4, 8}));
  EXPECT_EQ(c.g.getTensor("a")->consumers.getTotal(), 1);
}

TEST(Graph, UnknownTensorNamesGraph) {
  Chain c;
  try {
    c.g.getTensor("nope");
    FAIL();
  } catch (const error &e) {
    EXPECT_NE(std::string(e.what()).find("no tensor 'nope' in graph 'main'"), std::string::npos);
  }
}

TEST(Graph, ScheduleIsTopologicalAndHonoursPriority) {
  Ir ir;
  Graph &g = ir.getMainGraph();
  g.getTensors().addStream("x", TensorInfo(DataType::FLOAT, {2}));
  Op *p = addRelu(g, "x", "p");
  Op *q = addRelu(g, "x", "q");
  q->settings.schedulePriority = 5;
  auto s = g.getOpSchedule();
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0], q);
  g.addTopoCon(p, q);
  s = g.getOpSchedule();
  EXPECT_EQ(s[0], p);
  g.addTopoCon(q, p);
  EXPECT_THROW(g.getOpSchedule(), error);
}

TEST(Graph, TypeConstraintIsChecked) {
  Ir ir;
  Graph &g = ir.getMainGraph();
  g.getTensors().addStream("b", TensorInfo(DataType::BOOL, {2}));
  try {
    addRelu(g, "b", "o");
    FAIL();
  } catch (const error &e) {
    EXPECT_NE(std::string(e.what()).find("type BOOL"), std::string::npos) << e.what();
  }
}

TEST(Transforms, ConstantFoldingReplacesOps) {
  Ir ir;
  Graph &g = ir.getMainGraph();
  std::vector<float> v{-1.f, 2.f};
  g.getTensors().addConstInit("k", TensorInfo(DataType::FLOAT, {2}), v.data());
  Op *op = addRelu(g, "k", "r");
  EXPECT_TRUE(foldIfConstant(*op));
  Tensor *r = g.getTensor("r");
  EXPECT_EQ(r->tensorType(), TensorType::Const);
  const float *data = reinterpret_cast<const float *>(r->tensorData().data());
  EXPECT_EQ(data[0], 0.f);
  EXPECT_EQ(data[1], 2.f);
  EXPECT_TRUE(g.getOps().empty());
}

TEST(Transforms, PruneKeepsOnlyWhatAnchorsNeed) {
  Chain c;
  addRelu(c.g, "x", "unused");
  EXPECT_TRUE(prune(c.g));
  EXPECT_EQ(c.g.getOps().size(), 3u);
  EXPECT_FALSE(c.g.getTensors().contains("unused"));
}

TEST(Transforms, InplaceOnlyWhereSafe) {
  Chain c;
  EXPECT_TRUE(inplace(c.g));
  int inplaceOps = 0;
  for (const auto &[id, op] : c.g.getOps()) inplaceOps += op->opid.type == "ReluInplace";
  // "a" and "b" feed exactly one op each; "x" is a stream and must stay intact.
  EXPECT_EQ(inplaceOps, 2);
}

TEST(MemoryPlan, ReusesDeadBuffersAndAliasesInplace) {
  Chain c;
  auto schedule = c.g.getOpSchedule();
  auto plan = popx::planMemory(c.g, schedule, {c.g.getTensor("c")});
  // a dies when b is produced... a and c can share; the arena holds at most two.
  EXPECT_LE(plan.arenaBytes, 2 * popx::alignUp(4 * 8 * 4));
  inplace(c.g);
  schedule = c.g.getOpSchedule();
  plan = popx::planMemory(c.g, schedule, {c.g.getTensor("c")});
  EXPECT_EQ(plan.arenaBytes, popx::alignUp(4 * 8 * 4));
  EXPECT_EQ(plan.aliasRoot.at(c.g.getTensor("c")), c.g.getTensor("a"));
}

TEST(Transforms, ModifierRunsAfterOtherReaders) {
  Ir ir;
  Graph &g = ir.getMainGraph();
  g.getTensors().addStream("x", TensorInfo(DataType::FLOAT, {3}));
  g.getTensors().addStream("y", TensorInfo(DataType::FLOAT, {3}));
  addRelu(g, "x", "t");
  Op *add = g.createConnectedOp({"ai.graphcore", "AddLhsInplace", 1}, {{0, "t"}, {1, "y"}}, {{0, "s"}}, Attributes());
  Op *reader = addRelu(g, "t", "r");  // created after the in-place add, reads t's old value
  Op *after = addRelu(g, "s", "u");   // reads the add's result: must stay after it
  add->settings.schedulePriority = 10;  // the scheduler would run it first
  orderModifiers(g);
  auto s = g.getOpSchedule();
  auto at = [&](Op *op) { return std::find(s.begin(), s.end(), op) - s.begin(); };
  EXPECT_LT(at(reader), at(add));
  EXPECT_LT(at(add), at(after));
}

TEST(Transforms, HostCopyOpsLoadStreamsAndStoreAnchors) {
  Chain c;
  addHostCopyOps(c.ir);
  Tensor *x = c.g.getTensor("x");
  EXPECT_EQ(x->tensorType(), TensorType::ActGrad);
  ASSERT_TRUE(x->hasProducer());
  Op *load = x->getProducer();
  EXPECT_EQ(load->opid.type, "HostLoad");
  EXPECT_EQ(load->attr<Attributes::String>("streamTensorId"), "x");
  EXPECT_EQ(load->inTensor(0)->getProducer()->opid.type, "Init");
  Tensor *anchor = c.g.getTensor("c");
  ASSERT_EQ(anchor->consumers.getTotal(), 1);
  Op *store = anchor->consumers.getOps().at(0);
  EXPECT_EQ(store->opid.type, "HostStore");
  EXPECT_EQ(store->attr<Attributes::String>("streamTensorId"), "c");
  EXPECT_TRUE(c.g.getTensors().getOfType(TensorType::Stream).empty());
}
