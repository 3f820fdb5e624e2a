// Private to autodiff: backward graphs of sub-graphs and the grad ops of the
// control-flow ops that run them.
#pragma once
#include "popart/names.hpp"
#include <map>
#include <memory>
#include <vector>

namespace popart {

class Graph;
class Op;
class SubgraphOp;

/// The gradient of sub-graph F as a graph B. B's inputs: the gradients of F's
/// float outputs (outGrads), then F tensors the grad ops read (acts). B's
/// outputs: the gradients of F's float inputs (inGrads), zeros where no path.
struct BackwardGraph {
  Graph *graph = nullptr;
  std::vector<int> outGrads;    // F output index of B input i
  std::vector<TensorId> acts;   // F tensor of B input outGrads.size() + k
  std::vector<int> inGrads;     // F input index of B output j
};

/// The backward graphs made by one autodiff run.
class BackwardGraphs {
public:
  /// A new backward graph of `fwd` (the same F may be differentiated again).
  BackwardGraph create(Graph &fwd);
  /// A new backward graph of `fwd` giving the gradients of F's inputs `wrtInputs` (in that order)
  /// from the gradients of F's outputs `seedOutputs` (the other outputs' gradients count as zero).
  /// Indices of non-float tensors are skipped.
  BackwardGraph create(Graph &fwd, const std::vector<int> &wrtInputs, const std::vector<int> &seedOutputs);
  /// The backward graph of `fwd`, shared by every call site (Call).
  const BackwardGraph &shared(Graph &fwd);

private:
  std::map<const Graph *, BackwardGraph> shared_;
};

/// The grad op(s) of control-flow op `op`. Exposes as extra outputs of `op`
/// the activations its backward graphs read, and connects every output of
/// `op` so that each has a gradient (zeros when unused).
std::vector<std::unique_ptr<Op>> subgraphGradOps(SubgraphOp &op, BackwardGraphs &graphs);

} // namespace popart
