// Short-hands naming built-in ops (onnxOp("Relu", {6, 14}), internalOp("ReluGrad"))
// and the type lists used in their definitions; shared by op and kernel files.
#pragma once
#include "popart/datatype.hpp"
#include "popart/names.hpp"

namespace popart {

// ---- helpers for built-in registrations (POPART_REGISTER_OP) ----

/// A list of identifiers sharing a domain and type.
struct OpIds {
  std::vector<OperatorIdentifier> ids;
  bool isPublic = true;
  /// The first (for internal ops: the only) identifier.
  operator const OperatorIdentifier &() const { return ids.at(0); }
};
OpIds onnxOp(const std::string &type, std::vector<int> versions = {1});
OpIds graphcoreOp(const std::string &type, std::vector<int> versions = {1});
OpIds mlOp(const std::string &type, std::vector<int> versions = {1});
/// Grad, in-place and other internal ops: ai.graphcore domain, not importable from ONNX.
OpIds internalOp(const std::string &type);

std::vector<DataType> floatTypes();      // FLOAT, FLOAT16, DOUBLE
std::vector<DataType> numericTypes();    // floats and all integers
std::vector<DataType> allTypes();        // numeric + BOOL
std::vector<DataType> intTypes();        // all integer types
std::vector<DataType> storageTypes();    // ONNX 8/4/2-bit types (isStorageType)

} // namespace popart

#define POPART_CONCAT_INNER(a, b) a##b
#define POPART_CONCAT(a, b) POPART_CONCAT_INNER(a, b)
#define POPART_UNIQUE_NAME(base) POPART_CONCAT(base, __COUNTER__)
