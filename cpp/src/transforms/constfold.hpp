// Constant folding: an op whose inputs are all Const is evaluated on the host
// with its CPU kernel and replaced by Const outputs.
#pragma once

#include "popart/names.hpp"
#include <functional>
#include <map>
#include <vector>

namespace popart {
class Graph;
class Op;
struct OperatorIdentifier;

/// What constant folding runs ops with: the backend (cpu/) registers it.
/// Without one, nothing is folded.
struct ConstEvaluator {
  std::function<bool(const OperatorIdentifier &)> canEvaluate;
  /// Output bytes by index of an op whose inputs are all Const.
  std::function<std::map<OutIndex, std::vector<char>>(Op &)> evaluate;
};
void registerConstEvaluator(ConstEvaluator evaluator);
/// Folds `op` if it can be; returns true when it was replaced.
bool foldIfConstant(Op &op);
/// Folds every foldable op of the graph, in schedule order.
bool foldConstants(Graph &g);
} // namespace popart
