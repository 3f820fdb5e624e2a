// GraphTransformer: model-level rewrites on the parsed ModelProto.
#include "popart/graphtransformer.hpp"
#include "onnx/import.hpp"
#include "onnx/model.hpp"
#include "popart/error.hpp"
#include "popart/half.hpp"
#include "popart/tensorinfo.hpp"
#include <algorithm>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

namespace popart {
namespace {

constexpr int32_t kOnnxFloat = 1, kOnnxFloat16 = 10;

bool isModelBytes(const std::string &s) {
  std::ifstream f(s, std::ios::binary);
  return !(s.size() < 4096 && f.good());
}

std::vector<onnxpb::Tensor> &initializers(onnxpb::Model &m) { return m.graph.initializer; }

onnxpb::Tensor *findInitializer(onnxpb::Model &m, const TensorId &id) {
  for (auto &t : initializers(m))
    if (t.name == id) return &t;
  return nullptr;
}

void eraseInput(onnxpb::Graph &g, const TensorId &id) {
  g.input.erase(std::remove_if(g.input.begin(), g.input.end(), [&](const auto &v) { return v.name == id; }),
                g.input.end());
}

/// Host bytes of `t` in raw form (typed fields decoded); `t` keeps its type.
void makeRaw(onnxpb::Tensor &t) {
  if (t.hasRawData) return;
  if (t.dataLocation == 1) throw error("tensor '{}' is stored externally; load the model from its file", t.name);
  TensorInfo info = tensorInfoOf(t);
  std::vector<char> bytes = tensorBytes(t, info);
  t.rawData = packedRawData(info, bytes.data());
  t.hasRawData = true;
  t.floatData.clear();
  t.int32Data.clear();
  t.int64Data.clear();
  t.doubleData.clear();
  t.uint64Data.clear();
}

void floatTensorToHalf(onnxpb::Tensor &t) {
  if (t.dataType != kOnnxFloat) return;
  makeRaw(t);
  size_t n = t.rawData.size() / sizeof(float);
  std::string out(n * sizeof(float16_t), '\0');
  for (size_t i = 0; i < n; ++i) {
    float f;
    std::memcpy(&f, t.rawData.data() + i * sizeof(float), sizeof(float));
    float16_t h(f);
    std::memcpy(out.data() + i * sizeof(float16_t), &h, sizeof(float16_t));
  }
  t.rawData = std::move(out);
  t.dataType = kOnnxFloat16;
}

void valueInfosToHalf(std::vector<onnxpb::ValueInfo> &vs) {
  for (auto &v : vs)
    if (v.hasType && v.type.hasTensorType && v.type.elemType == kOnnxFloat) v.type.elemType = kOnnxFloat16;
}

void graphToHalf(onnxpb::Graph &g) {
  valueInfosToHalf(g.input);
  valueInfosToHalf(g.output);
  valueInfosToHalf(g.valueInfo);
  for (auto &t : g.initializer) floatTensorToHalf(t);
  for (auto &n : g.node)
    for (auto &a : n.attribute) {
      if (a.hasT) floatTensorToHalf(a.t);
      for (auto &t : a.tensors) floatTensorToHalf(t);
      if (a.hasG && a.g) graphToHalf(*a.g);
      for (auto &sub : a.graphs) graphToHalf(*sub);
      if (n.opType == "Cast" && a.name == "to" && a.i == kOnnxFloat) a.i = kOnnxFloat16;
    }
}

bool isFixedPoint(int32_t onnxType) {
  // INT8..INT64, UINT8..UINT64, BOOL
  return onnxType == 2 || onnxType == 3 || onnxType == 4 || onnxType == 5 || onnxType == 6 || onnxType == 7 ||
         onnxType == 9 || onnxType == 12 || onnxType == 13;
}

} // namespace

struct GraphTransformer::Impl {
  onnxpb::Model model;

  void toConstant(const TensorId &id) {
    onnxpb::Tensor *t = findInitializer(model, id);
    if (!t) throw error("GraphTransformer: '{}' is not an initializer of the model", id);
    onnxpb::Node node;
    node.opType = "Constant";
    node.name = "Constant_" + id;
    node.output = {id};
    onnxpb::Attribute a;
    a.name = "value";
    a.type = onnxpb::Attribute::Type::Tensor;
    a.hasT = true;
    a.t = *t;
    node.attribute.push_back(std::move(a));
    auto &g = model.graph;
    g.node.insert(g.node.begin(), std::move(node));
    g.initializer.erase(g.initializer.begin() + (t - g.initializer.data()));
    eraseInput(g, id);
  }
};

GraphTransformer::GraphTransformer(const std::string &modelProtoOrFilename) : impl_(std::make_unique<Impl>()) {
  impl_->model = isModelBytes(modelProtoOrFilename) ? onnxpb::parseModel(modelProtoOrFilename)
                                                    : onnxpb::loadModelFile(modelProtoOrFilename);
}

GraphTransformer::~GraphTransformer() = default;

std::string GraphTransformer::getModelProto() const { return onnxpb::serializeModel(impl_->model); }

void GraphTransformer::removeUnusedInputs() {
  auto &g = impl_->model.graph;
  std::set<std::string> used;
  for (const auto &n : g.node) used.insert(n.input.begin(), n.input.end());
  for (const auto &o : g.output) used.insert(o.name);
  std::vector<std::string> unused;
  for (const auto &in : g.input)
    if (!used.count(in.name)) unused.push_back(in.name);
  for (const auto &id : unused) {
    eraseInput(g, id);
    g.initializer.erase(std::remove_if(g.initializer.begin(), g.initializer.end(),
                                       [&](const auto &t) { return t.name == id; }),
                        g.initializer.end());
  }
}

void GraphTransformer::prepareNodesForTraining() {
  auto &g = impl_->model.graph;
  int counter = 0;
  for (auto &n : g.node) {
    if (n.opType != "BatchNormalization" || n.output.size() != 1) continue;
    std::string base = (n.name.empty() ? "BatchNormalization" + std::to_string(counter++) : n.name) + "/";
    for (const char *o : {"mean", "var", "saved_mean", "saved_var"}) n.output.push_back(base + o);
  }
}

void GraphTransformer::convertFloatsToHalfs() { graphToHalf(impl_->model.graph); }

void GraphTransformer::convertInitializersToConstants(const std::vector<TensorId> &ids) {
  for (const auto &id : ids)
    if (!findInitializer(impl_->model, id))
      throw error("convertInitializersToConstants: '{}' is not an initializer of the model", id);
  for (const auto &id : ids) impl_->toConstant(id);
}

void GraphTransformer::convertAllFixedPointInitializersToConstants() {
  std::vector<TensorId> ids;
  for (const auto &t : initializers(impl_->model))
    if (isFixedPoint(t.dataType)) ids.push_back(t.name);
  for (const auto &id : ids) impl_->toConstant(id);
}

void GraphTransformer::saveInitializersExternally(const std::vector<TensorId> &ids, const std::string &fn) {
  std::vector<onnxpb::Tensor *> ts;
  for (const auto &id : ids) {
    onnxpb::Tensor *t = findInitializer(impl_->model, id);
    if (!t) throw error("saveInitializersExternally: '{}' is not an initializer of the model", id);
    makeRaw(*t);
    ts.push_back(t);
  }
  onnxpb::writeExternalData(ts, fn);
}

} // namespace popart
