// The op/Opx registries as custom-op libraries use them: OpCreator forms,
// re-registration, OpDefinition attribute checks, Opx::verifyOp.
#include "core/registrant.hpp"
#include "popart/error.hpp"
#include "popart/graph.hpp"
#include "popart/ir.hpp"
#include "popart/opmanager.hpp"
#include "popart/popx/opx.hpp"
#include <gtest/gtest.h>

using namespace popart;

namespace {

const OperatorIdentifier testOpId{"test.opmanager", "Scale", 1};
const OperatorIdentifier plainOpId{"test.opmanager", "Plain", 1};

class ScaleOp : public Op {
public:
  ScaleOp(const OperatorIdentifier &id, float s, const Op::Settings &settings) : Op(id, settings), scale(s) {}
  std::unique_ptr<Op> clone() const override { return std::make_unique<ScaleOp>(*this); }
  void setup() override { outInfo(0) = inInfo(0); }
  float scale;
};

class PlainOp : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return std::make_unique<PlainOp>(*this); }
  void setup() override { outInfo(0) = inInfo(0); }
};

const OpDefinition::DataTypes T = {DataType::FLOAT};
const OpDefinition scaleDef({{"input", T}}, {{"output", T}}, {{"scale", {"*"}}, {"mode", {"fast|exact"}}});

std::unique_ptr<Op> makeScale(const OpCreatorInfo &info) {
  return std::make_unique<ScaleOp>(info.opid, info.attributes.getAttribute<Attributes::Float>("scale", 1.0f),
                                   info.settings);
}

// Factory without the isPublic flag, and the (opid, settings) form.
OpCreator<ScaleOp> scaleCreator(OpDefinitions({{testOpId, scaleDef}}), makeScale);
OpCreator<PlainOp> plainCreator(OpDefinitions({{plainOpId, OpDefinition()}}), false);

Op *addOp(Ir &ir, const OperatorIdentifier &id, const Attributes &attrs) {
  Graph &g = ir.getMainGraph();
  if (!g.getTensors().contains("x")) g.getTensors().addStream("x", TensorInfo(DataType::FLOAT, {3}));
  return g.createConnectedOp(id, {{0, "x"}}, {{0, g.getIr().createIntermediateTensorId("y")}}, attrs);
}

} // namespace

TEST(OpManager, OpCreatorFormsRegister) {
  Ir ir;
  Attributes a;
  a.setAttribute("scale", 2.5f);
  auto *op = dynamic_cast<ScaleOp *>(addOp(ir, testOpId, a));
  ASSERT_NE(op, nullptr);
  EXPECT_FLOAT_EQ(op->scale, 2.5f);
  EXPECT_NE(dynamic_cast<PlainOp *>(addOp(ir, plainOpId, Attributes())), nullptr);
  EXPECT_TRUE(OpManager::isPublic(testOpId));
  EXPECT_FALSE(OpManager::isPublic(plainOpId));
}

TEST(OpManager, RegisteringTheSameClassAgainIsIgnored) {
  OpCreator<ScaleOp> again(OpDefinitions({{testOpId, scaleDef}}), makeScale);
  auto ids = OpManager::getSupportedOperations(true);
  EXPECT_EQ(std::count(ids.begin(), ids.end(), testOpId), 1);
}

TEST(OpManager, AnotherClassInTheSameLibraryKeepsTheFirst) {
  OpCreator<PlainOp> other(OpDefinitions({{testOpId, OpDefinition()}}), true);
  Ir ir;
  EXPECT_NE(dynamic_cast<ScaleOp *>(addOp(ir, testOpId, Attributes())), nullptr);
}

TEST(OpManager, AttributeValuesAreCheckedAgainstTheDefinition) {
  Ir ir;
  Attributes ok;
  ok.setAttribute("mode", std::string("exact"));
  EXPECT_NO_THROW(addOp(ir, testOpId, ok));
  Attributes bad;
  bad.setAttribute("mode", std::string("slow"));
  try {
    addOp(ir, testOpId, bad);
    FAIL() << "expected popart::error";
  } catch (const error &e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("attribute 'mode' has value slow"), std::string::npos) << msg;
    EXPECT_NE(msg.find("fast|exact"), std::string::npos) << msg;
  }
}

TEST(OpManager, InputTypesAreCheckedAgainstTheDefinition) {
  Ir ir;
  ir.getMainGraph().getTensors().addStream("x", TensorInfo(DataType::INT32, {3}));
  EXPECT_THROW(addOp(ir, testOpId, Attributes()), error);
}

TEST(OpManager, RegistrantNamesClassAndLibrary) {
  std::string s = describeRegistrant(typeid(ScaleOp));
  EXPECT_NE(s.find("ScaleOp"), std::string::npos) << s;
}

TEST(Opx, VerifyOpChecksClassAndIdentifier) {
  Ir ir;
  Op *op = addOp(ir, testOpId, Attributes());
  EXPECT_NO_THROW(popx::Opx::verifyOp<ScaleOp>(op, {testOpId}));
  EXPECT_NO_THROW(popx::Opx::verifyOp<ScaleOp>(op, testOpId));
  EXPECT_THROW(popx::Opx::verifyOp<PlainOp>(op, {testOpId}), error);
  EXPECT_THROW(popx::Opx::verifyOp<ScaleOp>(op, {plainOpId}), error);
}
