// Constant folding: an op whose inputs are all Const is evaluated on the host
// with its CPU kernel and replaced by Const outputs.
#pragma once

namespace popart {
class Graph;
class Op;
/// Folds `op` if it can be; returns true when it was replaced.
bool foldIfConstant(Op &op);
/// Folds every foldable op of the graph, in schedule order.
bool foldConstants(Graph &g);
} // namespace popart
