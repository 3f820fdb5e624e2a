// popart::Builder: ids, inputs/initialisers/outputs, schema checks, attributes,
// annotations, sub-graphs and model round trips through the ONNX codec.
#include "onnx/model.hpp"
#include "onnx/op_schema.hpp"
#include "popart/builder.hpp"
#include "popart/error.hpp"
#include "popart/tensorlocation.hpp"
#include <gtest/gtest.h>

using namespace popart;

namespace {
const onnxpb::Node &onlyNode(const onnxpb::Model &m, const std::string &type) {
  for (const auto &n : m.graph.node)
    if (n.opType == type) return n;
  throw std::runtime_error("no node " + type);
}
} // namespace

TEST(BuilderTest, OpSchemaLookup) {
  const auto *add6 = findOpSchema("", "Add", 6);
  ASSERT_NE(add6, nullptr);
  EXPECT_EQ(add6->sinceVersion, 6);
  EXPECT_EQ(findOpSchema("ai.onnx", "Add", 11)->sinceVersion, 7);
  EXPECT_EQ(findOpSchema("", "Resize", 9), nullptr);
  EXPECT_THROW(getOpSchema("", "Resize", 9), error);
  EXPECT_THROW(getOpSchema("", "Upsample", 10), error);  // deprecated at 10
  EXPECT_THROW(getOpSchema("", "NoSuchOp", 11), error);
  const auto &gelu = getOpSchema("ai.graphcore", "Gelu", 1);
  EXPECT_EQ(gelu.minInputs, 1);
  const auto *conv = findOpSchema("", "Conv", 11)->findAttribute("group");
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->type, OpAttrType::Int);
  EXPECT_EQ(conv->defaultText, "1");
}

TEST(BuilderTest, IdsAreUniqueAndScoped) {
  auto b = Builder::create();
  auto a = b->addInputTensor(TensorInfo("FLOAT", Shape{2}));
  auto c = b->addInputTensor("FLOAT", {2});
  EXPECT_EQ(a, "input");
  EXPECT_EQ(c, "input/1");
  auto s1 = b->addOp("ai.onnx", "Add", 11, {a, c}).at(0);
  auto s2 = b->addOp("ai.onnx", "Add", 11, {a, c}).at(0);
  EXPECT_EQ(s1, "Add:0");
  EXPECT_EQ(s2, "Add:0/1");
  b->pushNameScope("outer");
  b->pushNameScope("inner");
  auto s3 = b->addOp("ai.onnx", "Relu", 11, {s1}, 1, {}, "myrelu").at(0);
  EXPECT_EQ(s3, "outer/inner/myrelu:0");
  b->popNameScope();
  b->popNameScope();
  EXPECT_THROW(b->popNameScope(), error);
}

TEST(BuilderTest, ModelRoundTrip) {
  auto b = Builder::create();
  auto x = b->addInputTensor(TensorInfo("FLOAT", Shape{2, 3}), "x");
  std::vector<float> w(6, 1.5f);
  auto wId = b->addInitializedInputTensor(TensorInfo("FLOAT", Shape{2, 3}), w.data(), "w");
  auto y = b->addOp("", "Mul", 11, {x, wId}).at(0);
  b->addOutputTensor(y);
  auto m = onnxpb::parseModel(b->getModelProto());
  EXPECT_EQ(m.irVersion, 6);
  EXPECT_EQ(m.producerName, "popart-cpu");
  ASSERT_EQ(m.opsetImport.size(), 1u);
  EXPECT_EQ(m.opsetImport[0].version, 11);
  EXPECT_EQ(m.graph.input.size(), 2u);
  ASSERT_EQ(m.graph.initializer.size(), 1u);
  EXPECT_EQ(m.graph.initializer[0].rawData.size(), 24u);
  EXPECT_TRUE(b->isInitializer(wId));
  EXPECT_EQ(b->getTrainableTensorIds(), std::vector<TensorId>{wId});
  EXPECT_EQ(b->getTensorShape(x), (Shape{2, 3}));
  EXPECT_EQ(b->getTensorDtypeString(x), "float32");
  EXPECT_THROW(b->getTensorShape("nope"), error);

  auto loaded = Builder::createFromOnnxModel(b->getModelProto());
  auto z = loaded->addOp("", "Relu", 11, {y}).at(0);
  EXPECT_NE(z, y);
  EXPECT_EQ(loaded->getInputTensorIds(), (std::vector<TensorId>{x, wId}));
  EXPECT_EQ(loaded->getOutputTensorIds(), std::vector<TensorId>{y});
}

TEST(BuilderTest, SchemaErrors) {
  auto b = Builder::create();
  auto x = b->addInputTensor(TensorInfo("FLOAT", Shape{2}));
  EXPECT_THROW(b->addOp("", "Add", 11, {x, "missing"}), error);
  EXPECT_THROW(b->addOp("", "Add", 11, {x}), error);                           // too few inputs
  EXPECT_THROW(b->addOp("", "Softmax", 11, {x}, 1, {{"axis", 1.5f}}), error);  // wrong type
  EXPECT_THROW(b->addOp("", "Softmax", 11, {x}, 1, {{"bogus", int64_t(1)}}), error);
  EXPECT_THROW(b->addOp("", "Cast", 11, {x}), error);  // missing required 'to'
  b->addOp("", "Relu", 11, {x});
  EXPECT_THROW(b->addOp("", "Relu", 10, {x}), error);  // mixing ai.onnx opsets
  // int -> float coercion is allowed
  auto y = b->addOp("", "LeakyRelu", 11, {x}, 1, {{"alpha", int64_t(1)}}).at(0);
  EXPECT_FLOAT_EQ(b->getFloatNodeAttribute("alpha", {y}), 1.0f);
}

TEST(BuilderTest, NodeAttributesAndAnnotations) {
  auto b = Builder::create();
  auto x = b->addInputTensor(TensorInfo("FLOAT", Shape{4}));
  b->setAttribute(sVirtualGraphAttribute, int64_t(3));
  EXPECT_TRUE(b->hasVirtualGraph());
  EXPECT_EQ(b->getVirtualGraph(), 3);
  auto y = b->addOp("", "Relu", 11, {x}).at(0);
  b->clearAttribute(sVirtualGraphAttribute);
  EXPECT_EQ(b->getVirtualGraph(y), 3);
  b->addNodeAttribute("myints", std::vector<int64_t>{1, 2}, {y});
  b->addNodeAttribute("mystr", std::string("hi"), {y});
  EXPECT_EQ(b->getInt64VectorNodeAttribute("myints", {y}), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(b->getStringNodeAttribute("mystr", {y}), "hi");
  EXPECT_THROW(b->getFloatNodeAttribute("mystr", {y}), error);
  EXPECT_THROW(b->addNodeAttribute("mystr", std::string("again"), {y}), error);
  b->removeNodeAttribute("mystr", {y});
  EXPECT_FALSE(b->nodeHasAttribute("mystr", {y}));
  b->pipelineStage(y, 2);
  b->setAvailableMemoryProportion(y, 0.5f);
  b->setPartialsType(y, "HALF");
  EXPECT_EQ(b->getPartialsType(y), "HALF");
  EXPECT_THROW(b->setPartialsType(y, "DOUBLE"), error);
  b->outputTensorLocation(y, TensorLocation(TensorStorage::OffChip));
  auto names = b->getAllNodeAttributeNames({y});
  EXPECT_NE(std::find(names.begin(), names.end(), "__pipeline_stage"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "__output_tensor_location"), names.end());
  auto cp = b->checkpointOutput({y});
  EXPECT_EQ(b->getInt64NodeAttribute(sRecomputeOutputAttribute, {cp.at(0)}), 1);
}

TEST(BuilderTest, CallSubgraph) {
  auto b = Builder::create();
  auto x = b->addInputTensor(TensorInfo("FLOAT", Shape{2}));
  auto &sub = b->createSubgraphBuilder();
  sub.setGraphName("body");
  auto si = sub.addInputTensor(TensorInfo("FLOAT", Shape{2}));
  auto so = sub.addOp("", "Relu", 11, {si}).at(0);
  sub.addOutputTensor(so);
  EXPECT_NE(si, x);  // ids stay unique across the builder tree
  auto outs = b->addOp("ai.graphcore", "Call", 1, {x}, 1, {{"callee", SubgraphRef{&sub}}});
  auto m = onnxpb::parseModel(b->getModelProto());
  const auto &call = onlyNode(m, "Call");
  EXPECT_EQ(call.domain, "ai.graphcore");
  ASSERT_EQ(call.attribute.size(), 1u);
  ASSERT_TRUE(call.attribute[0].g);
  EXPECT_EQ(call.attribute[0].g->name, "body");
  EXPECT_EQ(call.attribute[0].g->node.size(), 1u);
  EXPECT_EQ(m.opsetImport.size(), 2u);
  EXPECT_THROW(b->addInputTensorFromParentGraph(x), error);  // root has no parent
  sub.addInputTensorFromParentGraph(x);
  EXPECT_THROW(sub.addInputTensorFromParentGraph("nope"), error);
}

TEST(BuilderTest, ReshapeConstAndConstant) {
  auto b = Builder::create();
  auto x = b->addInputTensor(TensorInfo("FLOAT", Shape{2, 3, 4}));
  auto y = b->reshape_const({x}, {0, -1});
  EXPECT_EQ(b->getTensorShape(y), (Shape{2, 12}));
  b->addOutputTensor(y);
  auto m = onnxpb::parseModel(b->getModelProto());
  EXPECT_EQ(m.graph.node.size(), 2u);
  EXPECT_TRUE(m.graph.output.at(0).hasType);
}
