// The process-wide op registry (lives in libpopart.so, shared by custom-op libraries).
#include "popart/opmanager.hpp"
#include "core/registrant.hpp"
#include "core/suggest.hpp"
#include "popart/error.hpp"
#include "popart/graph.hpp"
#include "popart/logging.hpp"
#include <mutex>
#include <regex>

namespace popart {
namespace {

struct Entry {
  OperatorIdentifier id;
  OpDefinition def;
  bool isPublic;
  OpManager::OpFactoryFunc factory;
  const std::type_info *opClass;  // may be null (registered without a class)
};

struct Registry {
  std::mutex mutex;
  // (domain, type) -> entries sorted by version
  std::map<std::pair<std::string, std::string>, std::vector<Entry>> entries;
  // (domain, type) registered by two libraries -> the error creating it raises
  std::map<std::pair<std::string, std::string>, std::string> conflicts;
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

// " — did you mean 'Relu'?" for the registered op types of `domain` closest to `type`.
std::string closestRegistered(const OpDomain &domain, const OpType &type) {
  std::vector<std::string> types;
  for (const auto &kv : registry().entries)
    if (kv.first.first == domain) types.push_back(kv.first.second);
  return didYouMean(type, types);
}

bool sameClass(const std::type_info *a, const std::type_info *b) {
  return a && b && std::string(a->name()) == b->name();
}
// Unknown origins count as the same object (registrations without a class).
bool sameObject(const std::type_info *a, const std::type_info *b) {
  std::string x = a ? sharedObjectOf(a) : "", y = b ? sharedObjectOf(b) : "";
  return x.empty() || y.empty() || x == y;
}

// Attribute values must match the regex of their OpDefinition entry ("*": any).
void checkAttributes(const Entry &e, const Attributes &attrs) {
  for (const auto &[name, allowed] : e.def.attributes) {
    const std::string &pattern = allowed.supportedValuesRegex;
    if (!attrs.hasAttribute(name) || pattern.empty() || pattern == "*") continue;
    std::string text = toString(attrs.values().at(name));
    std::regex re;
    try {
      re = std::regex(pattern);
    } catch (const std::regex_error &) {
      throw error("the definition of {} gives attribute '{}' the invalid regex '{}'", toString(e.id),
                  name, pattern);
    }
    if (!std::regex_match(text, re))
      throw error("attribute '{}' has value {}, which the definition of {} does not allow (expected "
                  "values matching '{}')", name, text, toString(e.id), pattern);
  }
}

std::unique_ptr<Op> create(const Entry &e, const Op::Settings &settings, const Attributes &attrs) {
  auto conflict = registry().conflicts.find({e.id.domain, e.id.type});
  if (conflict != registry().conflicts.end()) throw error("{}", conflict->second);
  checkAttributes(e, attrs);
  OpCreatorInfo info(e.id, settings, attrs);
  std::unique_ptr<Op> op;
  try {
    op = e.factory(info);
  } catch (const error &) {
    throw;
  } catch (...) {  // a custom op's factory or constructor
    throw error("while creating op '{}' ({}): user code threw {}", settings.name, toString(e.id),
                describeForeignException());
  }
  if (!op) throw error("factory of {} returned no op", toString(e.id));
  for (const auto &[name, value] : attrs.values())
    if (!op->attributes().hasAttribute(name)) op->attributes().setAttribute(name, value);
  return op;
}

} // namespace

void OpManager::registerOp(const OperatorIdentifier &id, const OpDefinition &def, bool isPublic,
                           OpFactoryFunc factory, const std::type_info *opClass) {
  if (opClass) keepResident(opClass);  // a custom-op library stays loaded once it registered
  auto &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto &list = r.entries[{id.domain, id.type}];
  for (auto &e : list) {
    if (sameClass(e.opClass, opClass)) {
      if (e.id.version != id.version) continue;
      // A copy of a library loaded again re-runs its registrars: keep the first.
      logging::op::debug("op {} registered again by the same class; keeping the first", toString(id));
      return;
    }
    if (!sameObject(e.opClass, opClass)) {
      std::string msg = formatMessage(
          "op {}.{} is registered twice: by {} and by {}. A custom op may not reuse the identifier of "
          "a built-in op or of another library's op: give it its own domain (e.g. \"custom.ops\")",
          {FormatArg(id.domain), FormatArg(id.type), FormatArg(describeRegistrant(*e.opClass)),
           FormatArg(describeRegistrant(*opClass))});
      logging::op::err("{}", msg);
      r.conflicts.emplace(std::make_pair(id.domain, id.type), msg);
      return;
    }
    if (e.id.version == id.version) {
      logging::op::warn("op {} registered twice in one library; keeping the first", toString(id));
      return;
    }
  }
  list.push_back({id, def, isPublic, std::move(factory), opClass});
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
      throw error("op {}.{} (opset {}) is not registered{}: if it is a custom op, load its library "
                  "(ctypes.cdll.LoadLibrary) before creating the session",
                  domain.empty() ? Domain::ai_onnx : domain, type, opset,
                  closestRegistered(domain.empty() ? Domain::ai_onnx : domain, type));
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
std::vector<DataType> storageTypes() {
  std::vector<DataType> v;
  for (auto t = DataType::FLOAT8E4M3FN; t <= lastDataType; t = static_cast<DataType>(static_cast<int>(t) + 1))
    v.push_back(t);
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
