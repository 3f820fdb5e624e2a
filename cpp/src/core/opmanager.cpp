// The process-wide op registry (lives in libpopart.so, shared by custom-op libraries).
#include "popart/opmanager.hpp"
#include "popart/error.hpp"
#include "popart/graph.hpp"
#include "popart/logging.hpp"
#include <mutex>

namespace popart {
namespace {

struct Entry {
  OperatorIdentifier id;
  OpDefinition def;
  bool isPublic;
  OpManager::OpFactoryFunc factory;
};

struct Registry {
  std::mutex mutex;
  // (domain, type) -> entries sorted by version
  std::map<std::pair<std::string, std::string>, std::vector<Entry>> entries;
};

Registry &registry() {
  static Registry r;
  return r;
}

const Entry *findExact(const OperatorIdentifier &id) {
  auto &r = registry();
  auto it = r.entries.find({id.domain, id.type});
  if (it == r.entries.end()) return nullptr;
  for (const auto &e : it->second)
    if (e.id.version == id.version) return &e;
  return nullptr;
}

const Entry *findForOpset(const OpDomain &domain, const OpType &type, int64_t opset) {
  auto &r = registry();
  auto it = r.entries.find({domain.empty() ? Domain::ai_onnx : domain, type});
  if (it == r.entries.end()) return nullptr;
  const Entry *best = nullptr;
  for (const auto &e : it->second)
    if (e.id.version <= opset && (!best || e.id.version > best->id.version)) best = &e;
  return best;
}

std::string versionsOf(const OpDomain &domain, const OpType &type) {
  auto &r = registry();
  auto it = r.entries.find({domain, type});
  std::vector<int64_t> v;
  if (it != r.entries.end())
    for (const auto &e : it->second) v.push_back(e.id.version);
  return FormatArg(v).str();
}

std::unique_ptr<Op> create(const Entry &e, const Op::Settings &settings, const Attributes &attrs) {
  OpCreatorInfo info(e.id, settings, attrs);
  std::unique_ptr<Op> op = e.factory(info);
  if (!op) throw error("factory of {} returned no op", toString(e.id));
  for (const auto &[name, value] : attrs.values())
    if (!op->attributes().hasAttribute(name)) op->attributes().setAttribute(name, value);
  return op;
}

} // namespace

void OpManager::registerOp(const OperatorIdentifier &id, const OpDefinition &def, bool isPublic,
                           OpFactoryFunc factory) {
  auto &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto &list = r.entries[{id.domain, id.type}];
  for (auto &e : list) {
    if (e.id.version != id.version) continue;
    // Loading the same library twice re-runs its registrars: keep the first.
    logging::op::debug("op {} registered again; keeping the first registration", toString(id));
    if (e.def.inputs.size() != def.inputs.size() || e.def.outputs.size() != def.outputs.size())
      throw error("op {} is already registered with a different definition (a custom op may not "
                  "reuse the identifier of a built-in op)", toString(id));
    return;
  }
  list.push_back({id, def, isPublic, std::move(factory)});
}

const OperatorIdentifier *OpManager::resolve(const OpDomain &domain, const OpType &type, int64_t opset) {
  const Entry *e = findForOpset(domain, type, opset);
  return e ? &e->id : nullptr;
}

std::unique_ptr<Op> OpManager::createOp(const OpDomain &domain, const OpType &type, int64_t opset,
                                        const Op::Settings &settings, const Attributes &attrs) {
  const Entry *e = findForOpset(domain, type, opset);
  if (!e) {
    auto versions = versionsOf(domain.empty() ? Domain::ai_onnx : domain, type);
    if (versions == "[]")
      throw error("op {}.{} (opset {}) is not registered: if it is a custom op, load its library "
                  "(ctypes.cdll.LoadLibrary) before creating the session",
                  domain.empty() ? Domain::ai_onnx : domain, type, opset);
    throw error("op {}.{} is not available at opset {} (registered versions {})", domain, type,
                opset, versions);
  }
  return create(*e, settings, attrs);
}

std::unique_ptr<Op> OpManager::createOp(const OperatorIdentifier &id, const Op::Settings &settings,
                                        const Attributes &attrs) {
  const Entry *e = findExact(id);
  if (!e) e = findForOpset(id.domain, id.type, id.version);
  if (!e) throw error("op {} is not registered", toString(id));
  return create(*e, settings, attrs);
}

const OpDefinition *OpManager::getDefinition(const OperatorIdentifier &id) {
  const Entry *e = findExact(id);
  return e ? &e->def : nullptr;
}

bool OpManager::isPublic(const OperatorIdentifier &id) {
  const Entry *e = findExact(id);
  return e && e->isPublic;
}

std::vector<OperatorIdentifier> OpManager::getSupportedOperations(bool includePrivate) {
  std::vector<OperatorIdentifier> out;
  for (const auto &[key, list] : registry().entries)
    for (const auto &e : list)
      if (e.isPublic || includePrivate) out.push_back(e.id);
  return out;
}

OpDefinitions OpManager::getSupportedOperationsDefinition(bool includePrivate) {
  OpDefinitions out;
  for (const auto &[key, list] : registry().entries)
    for (const auto &e : list)
      if (e.isPublic || includePrivate) out[e.id] = e.def;
  return out;
}

// ---- built-in registration helpers ----

namespace {
OpIds makeIds(const char *domain, const std::string &type, std::vector<int> versions, bool isPublic) {
  OpIds ids;
  ids.isPublic = isPublic;
  for (int v : versions) ids.ids.emplace_back(domain, type, v);
  return ids;
}
} // namespace

OpIds onnxOp(const std::string &type, std::vector<int> versions) { return makeIds(Domain::ai_onnx, type, versions, true); }
OpIds graphcoreOp(const std::string &type, std::vector<int> versions) { return makeIds(Domain::ai_graphcore, type, versions, true); }
OpIds mlOp(const std::string &type, std::vector<int> versions) { return makeIds(Domain::ai_onnx_ml, type, versions, true); }
OpIds internalOp(const std::string &type) { return makeIds(Domain::ai_graphcore, type, {1}, false); }

std::vector<DataType> floatTypes() { return {DataType::FLOAT, DataType::FLOAT16, DataType::DOUBLE}; }
std::vector<DataType> intTypes() {
  return {DataType::INT8, DataType::INT16, DataType::INT32, DataType::INT64,
          DataType::UINT8, DataType::UINT16, DataType::UINT32, DataType::UINT64};
}
std::vector<DataType> numericTypes() {
  auto v = floatTypes();
  for (auto t : intTypes()) v.push_back(t);
  return v;
}
std::vector<DataType> allTypes() {
  auto v = numericTypes();
  v.push_back(DataType::BOOL);
  return v;
}

OpDefinitions makeDefinitions(const OpIds &ids, std::vector<DataType> types) {
  OpDefinitions defs;
  for (const auto &id : ids.ids) {
    OpDefinition d;
    d.inputs.push_back({"input", types, false});
    defs[id] = d;
  }
  return defs;
}

std::unique_ptr<Op> detail::notCreatable(const OpCreatorInfo &info) {
  throw error("op {} cannot be created by identifier; it is made by its forward op", toString(info.opid));
}

} // namespace popart
