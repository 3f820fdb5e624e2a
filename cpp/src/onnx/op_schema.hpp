// The operator table the Builder validates against: every ai.onnx op of opsets
// 6..21 and ai.onnx.ml opset 1 (generated from the onnx package by
// tools/gen_op_table.py) plus the hand-written ai.graphcore opset 1 rows.
#pragma once
#include <string>
#include <vector>

namespace popart {

/// Attribute types; values are ONNX's AttributeProto.AttributeType numbers.
enum class OpAttrType : int {
  Float = 1, Int = 2, String = 3, Tensor = 4, Graph = 5, Floats = 6, Ints = 7,
  Strings = 8, Tensors = 9, Graphs = 10, SparseTensor = 11, SparseTensors = 12,
  TypeProto = 13, TypeProtos = 14
};
std::string toString(OpAttrType t);  // "INT", "FLOATS", ...

struct OpAttrSchema {
  std::string name;
  OpAttrType type;
  bool required = false;
  bool hasDefault = false;
  /// Default as text: "1", "0.5", "NOTSET", lists comma separated ("1,1").
  std::string defaultText;
};

struct OpInputSchema {
  enum class Option { Single, Optional, Variadic };
  std::string name;
  Option option = Option::Single;
};

struct OpSchema {
  std::string domain;  // "ai.onnx", "ai.onnx.ml", "ai.graphcore"
  std::string type;
  int sinceVersion = 1;
  bool deprecated = false;
  int minInputs = 0, maxInputs = 0;
  std::vector<OpInputSchema> inputs;
  int minOutputs = 0, maxOutputs = 0;
  std::vector<std::string> outputs;
  std::vector<OpAttrSchema> attributes;  // PopART's argument order

  /// nullptr when the op has no attribute of that name.
  const OpAttrSchema *findAttribute(const std::string &name) const;
  bool variableOutputs() const { return minOutputs != maxOutputs; }
};

/// Every row of the table, sorted by domain, type and since version.
const std::vector<OpSchema> &allOpSchemas();
/// The schema in effect at `opsetVersion` (highest since_version <= opset), or
/// nullptr. `domain` "" means ai.onnx.
const OpSchema *findOpSchema(const std::string &domain, const std::string &type, int opsetVersion);
/// As findOpSchema, but throws popart::error saying why the op is unavailable
/// (unknown op, introduced after the opset, deprecated at the opset).
const OpSchema &getOpSchema(const std::string &domain, const std::string &type, int opsetVersion);
/// The opset versions the table covers for a domain ({6..21} for ai.onnx).
std::vector<int> supportedOpsetVersions(const std::string &domain);

} // namespace popart
