// Which node inputs are operands the compiler must know (Reshape's shape,
// Dropout's ratio, Clip's bounds, ...): initializers feeding them are
// constants of the IR, never trainable weights.
#pragma once
#include <cstdint>
#include <functional>
#include <set>
#include <string>

namespace popart {
namespace onnxpb {
struct Graph;
} // namespace onnxpb

/// True when input `index` of `domain.opType` at `opset` is a compile-time
/// operand (built-in ops from a table, custom ops from their OpDefinition).
bool isCompileTimeInput(const std::string &domain, const std::string &opType, int64_t opset, size_t index);

/// Names of the initializers of `g` that some node of `g` reads as a
/// compile-time operand; `opsetOf(domain)` is the model's version of a domain.
std::set<std::string> compileTimeInitializers(const onnxpb::Graph &g,
                                              const std::function<int64_t(const std::string &)> &opsetOf);
} // namespace popart
