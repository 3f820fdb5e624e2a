// popart::Builder: the public face of BuilderImpl (model I/O, ops, queries).
// Node attributes and PopART annotations are in builder_annotations.cpp.
#include "onnx/atomic_file.hpp"
#include "onnx/builder_impl.hpp"
#include "onnx/op_schema.hpp"
#include "popart/error.hpp"
#include "popart/tensorlocation.hpp"
#include "popart/variablesettings.hpp"
#include <filesystem>
#include <fstream>

namespace popart {

Builder::Builder() = default;
Builder::~Builder() = default;

std::unique_ptr<Builder> Builder::create() {
  std::unique_ptr<Builder> b(new Builder());
  b->impl_ = std::make_unique<BuilderImpl>(std::make_shared<BuilderShared>(), nullptr);
  return b;
}

std::unique_ptr<Builder> Builder::createFromOnnxModel(const std::string &modelProtoOrFilename) {
  auto b = create();
  b->impl_->loadModel(onnxpb::readModelOrFile(modelProtoOrFilename));
  return b;
}

Builder &Builder::createSubgraphBuilder() {
  std::unique_ptr<Builder> child(new Builder());
  child->impl_ = std::make_unique<BuilderImpl>(impl_->sharedPtr(), impl_.get());
  child->parent_ = this;
  children_.push_back(std::move(child));
  return *children_.back();
}

TensorId Builder::addInputTensor(const TensorInfo &info, const std::string &name) {
  return impl_->addInput(&info, name);
}

TensorId Builder::addInputTensor(const std::string &dataType, const Shape &shape, const std::string &name) {
  TensorInfo info(dataType, shape);
  return impl_->addInput(&info, name);
}

TensorId Builder::addInputTensor(const TensorInfo &info, const InputSettings &settings,
                                 const std::string &name) {
  auto id = impl_->addInput(&info, name);
  if (!settings.isDefault()) {
    onnxpb::StringStringEntry e;
    e.key = sInputSettingsMetadataPrefix + id;
    e.value = std::to_string(int(settings.tileSet)) + "," + std::to_string(int(settings.exchangeStrategy)) +
              "," + std::to_string(int(settings.replicatedStreamMode));
    impl_->model().metadataProps.push_back(e);
  }
  return id;
}

TensorId Builder::addUntypedInputTensor(const std::string &name) { return impl_->addInput(nullptr, name); }

void Builder::addInputTensorFromParentGraph(const TensorId &id) { impl_->addInputFromParent(id); }

TensorId Builder::addInitializedInputTensor(const TensorInfo &info, const void *data, const std::string &name) {
  return impl_->addInitializer(info, data, name);
}

TensorId Builder::addInitializedInputTensor(const TensorInfo &info, const void *data,
                                            const VariableSettings &settings, const std::string &name) {
  settings.verify();
  auto id = impl_->addInitializer(info, data, name);
  if (settings != VariableSettings()) {
    onnxpb::StringStringEntry e;
    e.key = sVariableSettingsMetadataPrefix + id;
    e.value = variableSettingsToMetadata(settings);
    impl_->model().metadataProps.push_back(e);
  }
  return id;
}

void Builder::addOutputTensor(const TensorId &id) { impl_->addOutput(id); }

std::vector<TensorId> Builder::addOp(const std::string &domain, const std::string &opType,
                                     int opsetVersion, const std::vector<TensorId> &inputs,
                                     int numOutputs, const NodeAttributes &attributes,
                                     const std::string &name) {
  const auto &schema = getOpSchema(domain, opType, opsetVersion);
  auto outs = impl_->addNode(schema.domain, opType, opsetVersion, &schema, inputs, numOutputs,
                             attributes, name);
  auto value = attributes.find("value");  // a Constant's type and shape are known
  if (opType == "Constant" && schema.domain == "ai.onnx" && value != attributes.end()) {
    if (const auto *d = std::get_if<ConstTensorData>(&value->second)) impl_->setValueInfo(outs.at(0), d->info);
  }
  return outs;
}

// The standard domains import one opset version per model: a custom op placed
// there at another version would change the version of every op of the model.
void Builder::checkCustomOpDomain(const OperatorIdentifier &opid, int opsetVersion) const {
  std::string d = opid.domain == "ai.onnx" ? std::string() : opid.domain;
  if (d != "" && d != "ai.onnx.ml" && d != "ai.graphcore") return;
  const auto &opsets = impl_->shared().opsets;
  auto it = opsets.find(d);
  int64_t pinned = it != opsets.end() ? it->second : (d.empty() ? getDefaultOpsetVersion() : 1);
  if (pinned == opsetVersion) return;
  throw error("customOp '{}': domain '{}' pins the model's opset to version {}, so an op of version {} "
              "cannot be added there; give custom ops a domain of their own (e.g. 'custom.ops')",
              opid.type, d.empty() ? "ai.onnx" : d, pinned, opsetVersion);
}

std::vector<TensorId> Builder::customOp(const OperatorIdentifier &opid, int opsetVersion,
                                        const std::vector<TensorId> &inputs, unsigned numOutputs,
                                        const NodeAttributes &attributes, const std::string &name) {
  checkCustomOpDomain(opid, opsetVersion);
  return impl_->addNode(opid.domain, opid.type, opsetVersion, nullptr, inputs,
                        static_cast<int>(numOutputs), attributes, name);
}

TensorId Builder::constant(const ConstTensorData &value, const std::string &name) {
  if (static_cast<int64_t>(value.bytes.size()) != value.info.nbytes()) {
    throw error("constant: {} bytes given for a tensor of {} ({} bytes)", value.bytes.size(),
                value.info.toString(), value.info.nbytes());
  }
  int v = impl_->shared().opsets.count("") ? int(impl_->shared().opsets.at("")) : getDefaultOpsetVersion();
  return addOp("ai.onnx", "Constant", v, {}, 1, {{"value", value}}, name).at(0);
}

TensorId Builder::reshape_const(const std::vector<TensorId> &args, const Shape &shape, const std::string &name) {
  if (args.size() != 1) throw error("reshape_const expects one input tensor, got {}", args.size());
  ConstTensorData d{TensorInfo(DataType::INT64, {static_cast<int64_t>(shape.size())}), {}};
  d.bytes.assign(reinterpret_cast<const char *>(shape.data()), shape.size() * sizeof(int64_t));
  auto shapeId = constant(d, name);
  int v = int(impl_->shared().opsets.at(""));
  auto out = addOp("ai.onnx", "Reshape", v, {args[0], shapeId}, 1, {}, name).at(0);
  if (const auto *vi = impl_->findTypedValueInfo(args[0])) {
    Shape resolved = shape;
    int64_t known = 1, inferIndex = -1, n = 1;
    for (const auto &d0 : vi->type.dims) n *= d0.value;
    for (size_t i = 0; i < shape.size(); ++i) {
      if (shape[i] == 0 && i < vi->type.dims.size()) resolved[i] = vi->type.dims[i].value;
      if (shape[i] == -1) inferIndex = static_cast<int64_t>(i);
      else known *= resolved[i];
    }
    if (inferIndex >= 0 && known > 0) resolved[inferIndex] = n / known;
    impl_->setValueInfo(out, TensorInfo(fromOnnxDataType(vi->type.elemType), resolved));
  }
  return out;
}

void Builder::setDefaultOpsetVersion(int version) { impl_->shared().defaultOnnxOpset = version; }
int Builder::getDefaultOpsetVersion() const { return impl_->shared().defaultOnnxOpset; }

int64_t Builder::getOpsetVersion(const std::string &domain) const {
  const auto &opsets = impl_->shared().opsets;
  auto it = opsets.find(domain == "ai.onnx" ? std::string() : domain);
  return it == opsets.end() ? 0 : it->second;
}

std::string Builder::getModelProto() const { return onnxpb::serializeModel(impl_->exportModel()); }

void Builder::saveModelProto(const std::string &filename) const {
  writeFileAtomically(filename, getModelProto(), "saveModelProto");
}

void Builder::saveInitializersExternally(const std::vector<TensorId> &ids, const std::string &filename) {
  std::vector<onnxpb::Tensor *> ts;
  for (const auto &id : ids) {
    auto *t = impl_->findInitializer(id);
    if (!t) throw error("saveInitializersExternally: '{}' is not an initializer", id);
    ts.push_back(t);
  }
  onnxpb::writeExternalData(ts, filename);
}

void Builder::setGraphName(const std::string &name) { impl_->graph().name = name; }
std::string Builder::getGraphName() const { return impl_->graph().name; }

void Builder::embedReplicationFactor(int replicationFactor) {
  auto &props = impl_->model().metadataProps;
  for (auto &p : props) {
    if (p.key == sReplicationFactorMetadata) {
      p.value = std::to_string(replicationFactor);
      return;
    }
  }
  props.push_back({sReplicationFactorMetadata, std::to_string(replicationFactor)});
}

std::vector<TensorId> Builder::getInputTensorIds() const {
  std::vector<TensorId> ids;
  for (const auto &v : impl_->graph().input) ids.push_back(v.name);
  return ids;
}

std::vector<TensorId> Builder::getOutputTensorIds() const {
  std::vector<TensorId> ids;
  for (const auto &v : impl_->graph().output) ids.push_back(v.name);
  return ids;
}

std::vector<TensorId> Builder::getValueTensorIds() const {
  std::vector<TensorId> ids;
  for (const auto &v : impl_->graph().valueInfo) ids.push_back(v.name);
  return ids;
}

std::vector<TensorId> Builder::getTrainableTensorIds() const {
  std::vector<TensorId> ids;
  for (const auto &t : impl_->graph().initializer) {
    if (isFloatingPoint(fromOnnxDataType(t.dataType))) ids.push_back(t.name);
  }
  return ids;
}

bool Builder::hasValueInfo(const TensorId &id) const { return impl_->findTypedValueInfo(id) != nullptr; }
bool Builder::hasTensor(const TensorId &id) const { return impl_->hasTensor(id); }

bool Builder::isInitializer(const TensorId &id) const { return impl_->findInitializer(id) != nullptr; }

// PopART's Builder answers shape/type queries for any op's output: when the
// tensor has no recorded type yet, the ops' own inference fills value_info first
// (a cache of what the model implies, hence allowed from a const query).
static void ensureTyped(const Builder &b, const BuilderImpl &impl, const TensorId &id) {
  if (!impl.findTypedValueInfo(id) && impl.hasTensor(id)) const_cast<Builder &>(b).inferTensorInfos();
}

Shape Builder::getTensorShape(const TensorId &id) const {
  ensureTyped(*this, *impl_, id);
  const auto *v = impl_->findTypedValueInfo(id);
  if (!v || !v->type.hasShape) {
    throw error("getTensorShape: no shape is known for tensor '{}'{}", id,
                impl_->hasTensor(id) ? "" : " (unknown tensor id)");
  }
  Shape s;
  for (const auto &d : v->type.dims) {
    if (!d.hasValue) throw error("getTensorShape: tensor '{}' has a symbolic dimension '{}'", id, d.param);
    s.push_back(d.value);
  }
  return s;
}

DataType Builder::getTensorDataType(const TensorId &id) const {
  ensureTyped(*this, *impl_, id);
  const auto *v = impl_->findTypedValueInfo(id);
  if (!v) {
    throw error("getTensorDtypeString: no type is known for tensor '{}'{}", id,
                impl_->hasTensor(id) ? "" : " (unknown tensor id)");
  }
  return fromOnnxDataType(v->type.elemType);
}

std::string Builder::getTensorDtypeString(const TensorId &id) const {
  auto t = getTensorDataType(id);
  if (t == DataType::FLOAT) return "float32";
  if (t == DataType::DOUBLE) return "float64";
  return toLowerString(t);
}

void Builder::setTensorInfo(const TensorId &id, const TensorInfo &info) {
  if (!impl_->hasTensor(id)) throw error("setTensorInfo: unknown tensor id '{}'", id);
  impl_->setValueInfo(id, info);
}

} // namespace popart
