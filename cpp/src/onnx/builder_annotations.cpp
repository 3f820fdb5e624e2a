// popart::Builder node attributes: generic get/set/remove on existing nodes, the
// "current attributes" stamped on new nodes, name scopes, and PopART's
// annotations (virtual graph, pipeline stage, recompute, ...) built on them.
#include "onnx/builder_impl.hpp"
#include "popart/error.hpp"
#include "popart/tensorlocation.hpp"
#include <algorithm>

namespace popart {
namespace {

std::vector<onnxpb::Attribute>::iterator findAttr(onnxpb::Node &n, const std::string &name) {
  return std::find_if(n.attribute.begin(), n.attribute.end(),
                      [&name](const onnxpb::Attribute &a) { return a.name == name; });
}

template <class T> T getAs(const NodeAttribute &v, const std::string &name, const char *typeName) {
  if (const auto *p = std::get_if<T>(&v)) return *p;
  throw error("node attribute '{}' is not of type {} (it is {})", name, typeName, toString(v));
}

// Sets (replacing any previous value) an annotation on the node producing `outs`.
void setAnnotation(BuilderImpl &impl, const std::set<TensorId> &outs, const std::string &name,
                   const NodeAttribute &value) {
  auto &node = impl.findNode(outs);
  auto it = findAttr(node, name);
  if (it != node.attribute.end()) node.attribute.erase(it);
  node.attribute.push_back(toOnnxAttribute(name, value));
}

} // namespace

void Builder::addNodeAttribute(const std::string &name, const NodeAttribute &value,
                               const std::set<TensorId> &nodeOutputNames) {
  auto &node = impl_->findNode(nodeOutputNames);
  if (findAttr(node, name) != node.attribute.end()) {
    throw error("node with outputs {} already has attribute '{}'",
                std::vector<TensorId>(nodeOutputNames.begin(), nodeOutputNames.end()), name);
  }
  node.attribute.push_back(toOnnxAttribute(name, value));
}

bool Builder::nodeHasAttribute(const std::string &name, const std::set<TensorId> &outs) const {
  auto &node = const_cast<onnxpb::Node &>(std::as_const(*impl_).findNode(outs));
  return findAttr(node, name) != node.attribute.end();
}

NodeAttribute Builder::getNodeAttribute(const std::string &name, const std::set<TensorId> &outs) const {
  auto &node = const_cast<onnxpb::Node &>(std::as_const(*impl_).findNode(outs));
  auto it = findAttr(node, name);
  if (it == node.attribute.end()) {
    throw error("node {} ({}) has no attribute '{}'", node.opType,
                std::vector<TensorId>(outs.begin(), outs.end()), name);
  }
  return fromOnnxAttribute(*it);
}

int64_t Builder::getInt64NodeAttribute(const std::string &name, const std::set<TensorId> &outs) const {
  return getAs<int64_t>(getNodeAttribute(name, outs), name, "INT");
}
std::vector<int64_t> Builder::getInt64VectorNodeAttribute(const std::string &name,
                                                          const std::set<TensorId> &outs) const {
  return getAs<std::vector<int64_t>>(getNodeAttribute(name, outs), name, "INTS");
}
float Builder::getFloatNodeAttribute(const std::string &name, const std::set<TensorId> &outs) const {
  return getAs<float>(getNodeAttribute(name, outs), name, "FLOAT");
}
std::vector<float> Builder::getFloatVectorNodeAttribute(const std::string &name,
                                                        const std::set<TensorId> &outs) const {
  return getAs<std::vector<float>>(getNodeAttribute(name, outs), name, "FLOATS");
}
std::string Builder::getStringNodeAttribute(const std::string &name, const std::set<TensorId> &outs) const {
  return getAs<std::string>(getNodeAttribute(name, outs), name, "STRING");
}
std::vector<std::string> Builder::getStringVectorNodeAttribute(const std::string &name,
                                                               const std::set<TensorId> &outs) const {
  return getAs<std::vector<std::string>>(getNodeAttribute(name, outs), name, "STRINGS");
}

void Builder::removeNodeAttribute(const std::string &name, const std::set<TensorId> &outs) {
  auto &node = impl_->findNode(outs);
  auto it = findAttr(node, name);
  if (it == node.attribute.end()) {
    throw error("cannot remove attribute '{}': node {} has no such attribute", name, node.opType);
  }
  node.attribute.erase(it);
}

std::vector<std::string> Builder::getAllNodeAttributeNames(const std::set<TensorId> &outs) const {
  std::vector<std::string> names;
  for (const auto &a : impl_->findNode(outs).attribute) names.push_back(a.name);
  return names;
}

// ---- current attributes and scopes ----

void Builder::setAttribute(const std::string &name, const NodeAttribute &value) {
  impl_->current[name] = value;
}

NodeAttribute Builder::getAttribute(const std::string &name) const {
  auto it = impl_->current.find(name);
  if (it == impl_->current.end()) throw error("no current attribute '{}' is set on the builder", name);
  return it->second;
}

bool Builder::hasAttribute(const std::string &name) const { return impl_->current.count(name) != 0; }
void Builder::clearAttribute(const std::string &name) { impl_->current.erase(name); }

void Builder::pushNameScope(const std::string &name) { impl_->scopes.push_back(name); }

void Builder::popNameScope() {
  if (impl_->scopes.empty()) throw error("popNameScope: no name scope to pop");
  impl_->scopes.pop_back();
}

std::string Builder::getNameScope(const std::string &name) const { return impl_->scopedName(name); }

// ---- annotations ----

void Builder::virtualGraph(const TensorId &out, int64_t value) { virtualGraph(std::set<TensorId>{out}, value); }

void Builder::virtualGraph(const std::set<TensorId> &outs, int64_t value) {
  setAnnotation(*impl_, outs, sVirtualGraphAttribute, value);
}

void Builder::pipelineStage(const TensorId &out, int64_t value) { pipelineStage(std::set<TensorId>{out}, value); }
void Builder::pipelineStage(const std::set<TensorId> &outs, int64_t value) {
  setAnnotation(*impl_, outs, sPipelineStageAttribute, value);
}
void Builder::executionPhase(const TensorId &out, int64_t value) { executionPhase(std::set<TensorId>{out}, value); }
void Builder::executionPhase(const std::set<TensorId> &outs, int64_t value) {
  setAnnotation(*impl_, outs, sExecutionPhaseAttribute, value);
}
void Builder::recomputeOutput(const TensorId &out, RecomputeType value) {
  recomputeOutputInBackwardPass(std::set<TensorId>{out}, value);
}
void Builder::recomputeOutputInBackwardPass(const TensorId &out, RecomputeType value) {
  recomputeOutputInBackwardPass(std::set<TensorId>{out}, value);
}
void Builder::recomputeOutputInBackwardPass(const std::set<TensorId> &outs, RecomputeType value) {
  setAnnotation(*impl_, outs, sRecomputeOutputAttribute, static_cast<int64_t>(value));
}
bool Builder::getRecomputeOutputInBackwardPass(const TensorId &out) const {
  return getRecomputeOutputInBackwardPass(std::set<TensorId>{out});
}
bool Builder::getRecomputeOutputInBackwardPass(const std::set<TensorId> &outs) const {
  constexpr int64_t recompute = 2;  // RecomputeType::Recompute
  return nodeHasAttribute(sRecomputeOutputAttribute, outs) &&
         getInt64NodeAttribute(sRecomputeOutputAttribute, outs) == recompute;
}

std::vector<TensorId> Builder::checkpointOutput(const std::vector<TensorId> &outs) {
  constexpr int64_t checkpoint = 1;  // RecomputeType::Checkpoint
  std::vector<TensorId> result;
  for (const auto &id : outs) {
    auto out = addOp("ai.graphcore", "Nop", 1, {id}, 1, {}, "Checkpoint").at(0);
    setAnnotation(*impl_, {out}, sRecomputeOutputAttribute, checkpoint);
    result.push_back(out);
  }
  return result;
}

void Builder::outputTensorLocation(const TensorId &out, const TensorLocation &value) {
  setAnnotation(*impl_, {out}, sOutputTensorLocationAttribute, value.serialize());
}

void Builder::setAvailableMemoryProportion(const TensorId &out, float proportion) {
  setAvailableMemoryProportion(std::set<TensorId>{out}, proportion);
}
void Builder::setAvailableMemoryProportion(const std::set<TensorId> &outs, float proportion) {
  if (proportion > 1.0f || proportion <= 0.0f) {
    throw error("availableMemoryProportion must be in (0,1], got {}", proportion);
  }
  setAnnotation(*impl_, outs, sAvailMemAttribute, proportion);
}

void Builder::setPartialsType(const TensorId &out, const std::string &partialsType) {
  static const std::set<std::string> allowed = {"FLOAT", "HALF", "float", "half"};
  if (!allowed.count(partialsType)) {
    throw error("partials type '{}' is not one of FLOAT, HALF", partialsType);
  }
  setAnnotation(*impl_, {out}, sPartialsTypeAttribute, partialsType);
}

std::string Builder::getPartialsType(const TensorId &out) const {
  if (!nodeHasAttribute(sPartialsTypeAttribute, {out})) return "FLOAT";
  return getStringNodeAttribute(sPartialsTypeAttribute, {out});
}

void Builder::setEnableConvDithering(const TensorId &out, int64_t value) {
  setAnnotation(*impl_, {out}, sEnableConvDitheringAttribute, value);
}

void Builder::setInplacePreferences(const TensorId &out, const std::map<OpType, float> &prefs) {
  std::vector<std::string> names;
  std::vector<float> priorities;
  for (const auto &[type, p] : prefs) names.push_back(type), priorities.push_back(p);
  setAnnotation(*impl_, {out}, sInplaceOpNames, names);
  setAnnotation(*impl_, {out}, sInplaceOpPriorities, priorities);
}

void Builder::setSerializeMatMul(const std::set<TensorId> &outs, const std::string &mode,
                                 int64_t factor, bool keepPrecision) {
  static const std::set<std::string> modes = {"input_channels", "reducing_dim", "output_channels", "none"};
  if (!modes.count(mode)) {
    throw error("unsupported MatMul serialisation mode '{}' (input_channels, reducing_dim, "
                "output_channels or none)", mode);
  }
  setAnnotation(*impl_, outs, sSerializeMatMulModeAttribute, mode);
  setAnnotation(*impl_, outs, sSerializeMatMulFactorAttribute, factor);
  setAnnotation(*impl_, outs, sSerializeMatMulPrecisionAttribute, int64_t(keepPrecision));
}

void Builder::excludePatterns(const TensorId &out, const std::vector<std::string> &patterns) {
  setAnnotation(*impl_, {out}, sExcludePatternsAttribute, patterns);
}

void Builder::setExecutionContext(const TensorId &out, ExecutionContext value) {
  setAnnotation(*impl_, {out}, sExecutionContextAttribute, static_cast<int64_t>(value));
}

namespace {
int64_t currentInt(const Builder &b, const char *name, const char *what) {
  if (!b.hasAttribute(name)) throw error("the builder has no current {} set", what);
  return std::get<int64_t>(b.getAttribute(name));
}
} // namespace

int64_t Builder::getVirtualGraph() const { return currentInt(*this, sVirtualGraphAttribute, "virtual graph"); }
int64_t Builder::getVirtualGraph(const TensorId &out) const { return getVirtualGraph(std::set<TensorId>{out}); }
int64_t Builder::getVirtualGraph(const std::set<TensorId> &outs) const {
  return getInt64NodeAttribute(sVirtualGraphAttribute, outs);
}
bool Builder::hasVirtualGraph() const { return hasAttribute(sVirtualGraphAttribute); }
int64_t Builder::getPipelineStage() const { return currentInt(*this, sPipelineStageAttribute, "pipeline stage"); }
bool Builder::hasPipelineStage() const { return hasAttribute(sPipelineStageAttribute); }
int64_t Builder::getExecutionPhase() const { return currentInt(*this, sExecutionPhaseAttribute, "execution phase"); }
bool Builder::hasExecutionPhase() const { return hasAttribute(sExecutionPhaseAttribute); }

} // namespace popart
