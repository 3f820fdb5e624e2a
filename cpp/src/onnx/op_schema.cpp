// Builds the operator table from the generated ai.onnx rows and the hand-written
// ai.graphcore rows, and answers "which schema is in effect at opset N".
#include "onnx/op_schema.hpp"
#include "core/suggest.hpp"
#include "popart/error.hpp"
#include <algorithm>
#include <tuple>

namespace popart {
namespace {

struct AttrRow {
  const char *name;
  OpAttrType type;
  bool required;
  const char *defaultText;  // nullptr: no default
};
struct InputRow {
  const char *name;
  OpInputSchema::Option option;
};
struct OpRow {
  const char *domain, *type;
  int since;
  bool deprecated;
  int minIn, maxIn;
  std::vector<InputRow> inputs;
  int minOut, maxOut;
  std::vector<const char *> outputs;
  std::vector<AttrRow> attrs;
};

// Short names used by the table rows.
struct P {
  static constexpr auto S = OpInputSchema::Option::Single;
  static constexpr auto O = OpInputSchema::Option::Optional;
  static constexpr auto V = OpInputSchema::Option::Variadic;
};

std::vector<OpRow> tableRows() {
  using A = OpAttrType;
  return {
#include "onnx/op_table_onnx.inc"
#include "onnx/op_table_graphcore.inc"
  };
}

OpSchema fromRow(const OpRow &r) {
  OpSchema s;
  s.domain = r.domain;
  s.type = r.type;
  s.sinceVersion = r.since;
  s.deprecated = r.deprecated;
  s.minInputs = r.minIn;
  s.maxInputs = r.maxIn;
  for (const auto &i : r.inputs) s.inputs.push_back({i.name, i.option});
  s.minOutputs = r.minOut;
  s.maxOutputs = r.maxOut;
  s.outputs.assign(r.outputs.begin(), r.outputs.end());
  for (const auto &a : r.attrs) {
    s.attributes.push_back({a.name, a.type, a.required, a.defaultText != nullptr,
                            a.defaultText ? a.defaultText : ""});
  }
  return s;
}

std::vector<OpSchema> buildTable() {
  std::vector<OpSchema> out;
  for (const auto &r : tableRows()) out.push_back(fromRow(r));
  std::sort(out.begin(), out.end(), [](const OpSchema &a, const OpSchema &b) {
    return std::tie(a.domain, a.type, a.sinceVersion) < std::tie(b.domain, b.type, b.sinceVersion);
  });
  return out;
}

std::string canonicalDomain(const std::string &domain) {
  return domain.empty() || domain == "ai.onnx" ? std::string("ai.onnx") : domain;
}

} // namespace

std::string toString(OpAttrType t) {
  static const char *names[] = {"UNDEFINED", "FLOAT", "INT", "STRING", "TENSOR", "GRAPH", "FLOATS",
                                "INTS", "STRINGS", "TENSORS", "GRAPHS", "SPARSE_TENSOR", "SPARSE_TENSORS",
                                "TYPE_PROTO", "TYPE_PROTOS"};
  auto i = static_cast<int>(t);
  return i >= 0 && i <= 14 ? names[i] : "UNKNOWN";
}

const OpAttrSchema *OpSchema::findAttribute(const std::string &name) const {
  for (const auto &a : attributes) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

const std::vector<OpSchema> &allOpSchemas() {
  static const std::vector<OpSchema> table = buildTable();
  return table;
}

const OpSchema *findOpSchema(const std::string &domain, const std::string &type, int opsetVersion) {
  auto d = canonicalDomain(domain);
  const OpSchema *best = nullptr;
  for (const auto &s : allOpSchemas()) {
    if (s.domain == d && s.type == type && s.sinceVersion <= opsetVersion) best = &s;
  }
  return best;
}

namespace {

// " — did you mean 'Relu'?" for the op types of `domain` closest to `type`, or "".
std::string closestOpTypes(const std::string &domain, const std::string &type) {
  std::vector<std::string> types;
  for (const auto &s : allOpSchemas())
    if (s.domain == domain) types.push_back(s.type);
  return didYouMean(type, types);
}

} // namespace

const OpSchema &getOpSchema(const std::string &domain, const std::string &type, int opsetVersion) {
  auto d = canonicalDomain(domain);
  if (const auto *s = findOpSchema(d, type, opsetVersion)) {
    if (s->deprecated) {
      throw error("Op {} is deprecated in {} opset {} (since version {})", type, d, opsetVersion,
                  s->sinceVersion);
    }
    return *s;
  }
  std::vector<int> versions;
  for (const auto &s : allOpSchemas()) {
    if (s.domain == d && s.type == type) versions.push_back(s.sinceVersion);
  }
  if (versions.empty()) throw error("Unknown op {} in domain {}: no op '{}'{}", type, d, type, closestOpTypes(d, type));
  throw error("Op {} is not available in {} opset {}: it first appears in opset {}", type, d,
              opsetVersion, versions.front());
}

std::vector<int> supportedOpsetVersions(const std::string &domain) {
  auto d = canonicalDomain(domain);
  if (d == "ai.onnx") return {6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21};
  if (d == "ai.onnx.ml" || d == "ai.graphcore") return {1};
  return {};
}

} // namespace popart
