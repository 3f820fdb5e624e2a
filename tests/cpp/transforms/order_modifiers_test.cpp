// orderModifiers on graphs built op by op: readers of a tensor run before the op that modifies it in
// place, except readers already ordered after the modifier (data or topological constraint).
#include "popart/graph.hpp"
#include "popart/ir.hpp"
#include "popart/op.hpp"
#include "popart/tensor.hpp"
#include "transforms/order_modifiers.hpp"
#include <gtest/gtest.h>
#include <algorithm>

using namespace popart;

namespace {

const OperatorIdentifier relu{"ai.onnx", "Relu", 6};
const OperatorIdentifier addInplace{"ai.graphcore", "AddLhsInplace", 1};
const TensorInfo f3(DataType::FLOAT, {3});
const std::vector<float> ones{1.f, 1.f, 1.f};

bool hasCon(const Graph &g, const Op *before, const Op *after) {
  const auto &cons = g.getTopoCons();
  return std::find(cons.begin(), cons.end(), std::make_pair(before->id, after->id)) != cons.end();
}

size_t position(const std::vector<Op *> &schedule, const Op *op) {
  return static_cast<size_t>(std::find(schedule.begin(), schedule.end(), op) - schedule.begin());
}

struct Fixture {
  Ir ir;
  Graph &g = ir.getMainGraph();
  Op *before, *modifier, *after;
  // before = Relu(v); modifier: v += 1; after = Relu(v), ordered after the modifier by a constraint.
  Fixture() {
    g.getTensors().addVarInit("v", f3, ones.data());
    g.getTensors().addConstInit("one", f3, ones.data());
    before = g.createConnectedOp(relu, {{0, "v"}}, {{0, "r0"}}, Attributes());
    modifier = g.createConnectedOp(addInplace, {{0, "v"}, {1, "one"}}, {{0, "v1"}}, Attributes());
    after = g.createConnectedOp(relu, {{0, "v"}}, {{0, "r1"}}, Attributes());
  }
};

} // namespace

TEST(OrderModifiers, ReaderCreatedBeforeRunsBeforeTheModifier) {
  Fixture f;
  f.g.addTopoCon(f.modifier, f.after);
  orderModifiers(f.g);
  EXPECT_TRUE(hasCon(f.g, f.before, f.modifier));
  EXPECT_FALSE(hasCon(f.g, f.after, f.modifier));  // would be a cycle
  auto schedule = f.g.getOpSchedule();
  ASSERT_EQ(schedule.size(), 3u);
  EXPECT_LT(position(schedule, f.before), position(schedule, f.modifier));
  EXPECT_LT(position(schedule, f.modifier), position(schedule, f.after));
}

TEST(OrderModifiers, ReaderAfterAConstrainedChainIsLeftAlone) {
  Fixture f;
  // after2 reads v and is ordered after `after`, itself after the modifier: transitively after it.
  Op *after2 = f.g.createConnectedOp(relu, {{0, "v"}}, {{0, "r2"}}, Attributes());
  f.g.addTopoCon(f.modifier, f.after);
  f.g.addTopoCon(f.after, after2);
  orderModifiers(f.g);
  EXPECT_FALSE(hasCon(f.g, after2, f.modifier));
  EXPECT_EQ(f.g.getOpSchedule().size(), 4u);
}

TEST(OrderModifiers, UnconstrainedReadersAllRunBefore) {
  Fixture f;
  orderModifiers(f.g);
  EXPECT_TRUE(hasCon(f.g, f.before, f.modifier));
  EXPECT_TRUE(hasCon(f.g, f.after, f.modifier));
}
