// Ops that run sub-graphs: If, Loop, Scan (ai.onnx), Call and PackedDataBlock
// (ai.graphcore), and their gradients, which run backward graphs made by autodiff. Named by
// the importer (sub-graph input types), autodiff and the CPU kernels.
#pragma once
#include "popart/op.hpp"

namespace popart {

/// Int attribute set by the ONNX importer: how many implicit inputs follow the node's ONNX inputs.
inline constexpr const char *kImplicitInputsAttribute = "__implicit_inputs";

/// Base of the control-flow ops. Inputs: the node's ONNX inputs (optional ones
/// may be absent), then numImplicitInputs() tensors of enclosing graphs that
/// the sub-graphs read by name. The importer appends those same tensors, in
/// the same order, as the last inputs of every sub-graph of the op, so each
/// sub-graph is a closed function of its inputs (plain data flow).
class SubgraphOp : public Op {
public:
  using Op::Op;
  /// Names of the graph attributes the op runs ("body", "then_branch", ...).
  virtual std::vector<std::string> subgraphAttributes() const = 0;
  /// Types and shapes of the ONNX-defined inputs of sub-graph `attribute`,
  /// given the infos of the node's ONNX inputs (unset: absent). The importer
  /// uses them where the model leaves a sub-graph input's shape open.
  virtual std::vector<TensorInfo> subgraphInputInfos(const std::string &attribute,
                                                     const std::vector<TensorInfo> &ins) const = 0;
  Graph &subgraph(const std::string &attribute) const;
  int numImplicitInputs() const { return static_cast<int>(attr<Attributes::Int>(kImplicitInputsAttribute, 0)); }
  /// One past the last ONNX input index: implicit inputs start here.
  int numExplicitInputs() const { return input->maxIndex() - numImplicitInputs(); }
  /// True when an op of a sub-graph has one, or the op modifies an input (so it is neither folded nor pruned).
  bool hasSideEffect() const override;
  /// Inputs passed by reference (attribute "modifiedInputs", PopXL's by_ref graph inputs): what the sub-graph
  /// writes into their sub-graph input is copied back into the caller's tensor once the op has run.
  std::vector<InIndex> modifiedInputs() const;
  bool modifies(InIndex in) const override;

protected:
  /// Throws unless every modified input is an input of the op.
  void checkModifiedInputs() const;
  /// Throws unless sub-graph `g` has `onnxInputs` + numImplicitInputs() inputs.
  void checkInputCount(const Graph &g, size_t onnxInputs) const;
};

/// If (1, 11, 13, 16, 19, 21): outputs = then_branch() if cond else else_branch().
/// Both branches must give outputs of one type and shape (static shapes).
class IfOp : public SubgraphOp {
public:
  using SubgraphOp::SubgraphOp;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override;
  std::vector<std::string> subgraphAttributes() const override { return {"then_branch", "else_branch"}; }
  std::vector<TensorInfo> subgraphInputInfos(const std::string &, const std::vector<TensorInfo> &) const override {
    return {};
  }
};

/// Loop (1, 11, 13, 16, 19, 21): inputs (M, cond, v_initial..., implicit...);
/// body (iter, cond, v...) -> (cond, v..., scan...). Outputs: the final
/// loop-carried values, then the scan outputs stacked along a new axis 0 of
/// static length tripCount() (rows past an early exit are zero).
class LoopOp final : public SubgraphOp {
public:
  using SubgraphOp::SubgraphOp;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override;
  std::vector<std::string> subgraphAttributes() const override { return {"body"}; }
  std::vector<TensorInfo> subgraphInputInfos(const std::string &, const std::vector<TensorInfo> &ins) const override;
  /// Valid after setup(): the trip count when it is a compile-time constant, else -1
  /// (then M is read at run time, or the loop runs until cond is false).
  int64_t tripCount() const { return tripCount_; }
  int numCarried() const { return numCarried_; }
  int numScanOutputs() const { return numScanOutputs_; }

private:
  int64_t tripCount_ = -1;
  int numCarried_ = 0, numScanOutputs_ = 0;
};

/// Scan (8, 9, 11, 16, 19, 21): inputs (states..., scan inputs..., implicit...)
/// (Scan-8: sequence_lens first and a batch axis 0 on every input); the body
/// runs once per position t of the scan axis, (states, x_t...) -> (states, y_t...).
/// Outputs: final states, then the y_t stacked along the scan output axes.
class ScanOp final : public SubgraphOp {
public:
  using SubgraphOp::SubgraphOp;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override;
  std::vector<std::string> subgraphAttributes() const override { return {"body"}; }
  std::vector<TensorInfo> subgraphInputInfos(const std::string &, const std::vector<TensorInfo> &ins) const override;

  /// Valid after setup(). Op input of state 0 (1 for Scan-8, whose input 0 is sequence_lens).
  int firstState() const { return opid.version == 8 ? 1 : 0; }
  int numStates() const { return numStates_; }
  int numScanInputs() const { return static_cast<int>(inAxes_.size()); }
  int numScanOutputs() const { return static_cast<int>(outAxes_.size()); }
  /// Scan-8: the batch size (axis 0 of every input and output); 1 otherwise.
  int64_t batchSize() const { return batch_; }
  int64_t sequenceLength() const { return seqLen_; }
  /// Scan axis of scan input/output j in its op tensor (Scan-8: always 1).
  int64_t inAxis(int j) const { return inAxes_.at(j); }
  int64_t outAxis(int j) const { return outAxes_.at(j); }
  bool inReversed(int j) const { return inReverse_.at(j) != 0; }
  bool outReversed(int j) const { return outReverse_.at(j) != 0; }

private:
  void readAttributes(int numScanInputs, int numScanOutputs);
  void setupScanInputs(const Graph &body);
  void setupStates(const Graph &body);
  void setupScanOutputs(const Graph &body);
  std::vector<int64_t> inAxes_, outAxes_, inReverse_, outReverse_;
  int numStates_ = 0;
  int64_t batch_ = 1, seqLen_ = 0;
};

/// Call (ai.graphcore 1): outputs = callee(inputs).
class CallOp : public SubgraphOp {
public:
  using SubgraphOp::SubgraphOp;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override;
  std::vector<std::string> subgraphAttributes() const override { return {"callee"}; }
  std::vector<TensorInfo> subgraphInputInfos(const std::string &, const std::vector<TensorInfo> &ins) const override {
    return ins;
  }
};

/// PackedDataBlock (ai.graphcore 1): runs `callback` over packed variable-length
/// sequences, callbackBatchSize of them at a time. Inputs: for each of the N
/// packed inputs (N = size of maxSequenceLengths) a triple (data_i [total_i,
/// ...rest_i], offsets_i [S], lengths_i [S]), then resultOffsets [S] and
/// resultLengths [S] (index tensors INT32 or INT64); sequence s of input i is
/// data_i[offsets_i[s] : offsets_i[s] + lengths_i[s]]. The callback takes N inputs
/// [callbackBatchSize, maxSequenceLengths[i], ...rest_i] (sequences zero padded;
/// the last batch is filled up with empty ones) and gives one output
/// [callbackBatchSize, L, ...rest_out]. Output: [resultSize, ...rest_out], zero
/// except result[resultOffsets[s] : +resultLengths[s]] = out[b, :resultLengths[s]]
/// for sequence s at batch position b (later sequences win where ranges overlap).
/// No gradient.
class PackedDataBlockOp final : public SubgraphOp {
public:
  using SubgraphOp::SubgraphOp;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override;
  std::vector<std::string> subgraphAttributes() const override { return {"callback"}; }
  std::vector<TensorInfo> subgraphInputInfos(const std::string &, const std::vector<TensorInfo> &ins) const override;

  /// Valid after setup().
  int numPackedInputs() const { return static_cast<int>(maxLengths_.size()); }
  int64_t maxSequenceLength(int i) const { return maxLengths_.at(static_cast<size_t>(i)); }
  int64_t numSequences() const { return numSequences_; }
  int64_t callbackBatchSize() const { return batch_; }
  /// Rows per sequence in the callback output (its axis 1).
  int64_t callbackOutputLength() const { return outLength_; }
  InIndex dataIn(int i) const { return 3 * i; }
  InIndex offsetsIn(int i) const { return 3 * i + 1; }
  InIndex lengthsIn(int i) const { return 3 * i + 2; }
  InIndex resultOffsetsIn() const { return 3 * numPackedInputs(); }
  InIndex resultLengthsIn() const { return 3 * numPackedInputs() + 1; }

private:
  void readAttributes();
  void checkIndexInput(InIndex in, const char *what);
  void setupCallbackOutput(const Graph &callback);
  std::vector<int64_t> maxLengths_;
  int64_t numSequences_ = -1, batch_ = 1, outLength_ = 0;
};

/// Wiring of a control-flow grad op, decided by autodiff when it builds the
/// backward graphs: the forward tensor feeding each input, and the forward
/// input each output is the gradient of.
struct SubgraphGradWiring {
  std::vector<GradInOutMapper> inputs;
  std::map<int, int> outputs;
};

/// Gradient of Call: calls the backward graph of the callee, whose inputs are
/// the gradients of the call's outputs then forward activations, and whose
/// outputs are the gradients of the call's inputs.
class CallGradOp final : public CallOp {
public:
  CallGradOp(const CallOp &fwd, const GraphId &backward, SubgraphGradWiring wiring);
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  const std::vector<GradInOutMapper> &gradInputInfo() const override { return wiring_.inputs; }
  const std::map<int, int> &gradOutToNonGradIn() const override { return wiring_.outputs; }

private:
  SubgraphGradWiring wiring_;
};

/// Gradient of If: input 0 is the forward cond; runs the backward graph of
/// the branch taken, feeding it the op inputs branchInputs(0 then / 1 else).
/// Outputs: the gradients of the If's outer-scope inputs.
class IfGradOp final : public SubgraphOp {
public:
  IfGradOp(const IfOp &fwd, const GraphId &thenGrad, const GraphId &elseGrad,
           std::vector<std::vector<InIndex>> branchInputs, SubgraphGradWiring wiring);
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override;
  std::vector<std::string> subgraphAttributes() const override { return {"then_branch", "else_branch"}; }
  std::vector<TensorInfo> subgraphInputInfos(const std::string &, const std::vector<TensorInfo> &) const override {
    return {};
  }
  const std::vector<InIndex> &branchInputs(int branch) const { return branchInputs_.at(static_cast<size_t>(branch)); }
  const std::vector<GradInOutMapper> &gradInputInfo() const override { return wiring_.inputs; }
  const std::map<int, int> &gradOutToNonGradIn() const override { return wiring_.outputs; }

private:
  std::vector<std::vector<InIndex>> branchInputs_;
  SubgraphGradWiring wiring_;
};

/// How the backward body of a Scan or Loop meets the grad op's tensors.
/// Iteration t (run from last to first) reads slice t of stacked op inputs,
/// writes slice t of stacked op outputs, feeds the gradients of loop-carried
/// values from one iteration to the one before, and sums the gradients of
/// loop-invariant inputs over iterations.
struct IterationGradLayout {
  struct Carried {
    int bodyIn, bodyOut;  // gradient of the carried value after / before the iteration
    InIndex init;         // its gradient after the last iteration
    OutIndex final;       // its gradient before the first one
  };
  struct Sliced {
    int body;        // body input (from an op input) or output (to an op output)
    int op;          // op input or output index
    int64_t axis;    // stacking axis in the op tensor
    bool reverse;    // iteration t is at position length-1-t
  };
  std::vector<Carried> carried;
  std::vector<Sliced> ins, outs;
  std::vector<std::pair<int, InIndex>> whole;    // body input <- whole op input (loop-invariant)
  std::vector<std::pair<int, OutIndex>> summed;  // body output, summed over iterations into an op output
  InIndex mask = -1;   // Loop: stacked BOOL input, true for iterations that ran (-1: all ran)
  int64_t length = 0;  // number of iterations
};

/// Gradient of Scan (internal ScanGrad) and Loop (internal LoopGrad): runs the
/// backward body ("body") once per forward iteration, in reverse.
class LoopScanGradOp final : public SubgraphOp {
public:
  LoopScanGradOp(const SubgraphOp &fwd, const GraphId &backward, IterationGradLayout layout,
                 SubgraphGradWiring wiring, std::map<OutIndex, TensorInfo> outInfos);
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override;
  std::vector<std::string> subgraphAttributes() const override { return {"body"}; }
  std::vector<TensorInfo> subgraphInputInfos(const std::string &, const std::vector<TensorInfo> &) const override {
    return {};
  }
  const IterationGradLayout &layout() const { return layout_; }
  const std::vector<GradInOutMapper> &gradInputInfo() const override { return wiring_.inputs; }
  const std::map<int, int> &gradOutToNonGradIn() const override { return wiring_.outputs; }

private:
  IterationGradLayout layout_;
  SubgraphGradWiring wiring_;
  std::map<OutIndex, TensorInfo> outInfos_;
};

} // namespace popart
