// Control flow: If (outputs of the branch cond picks), Loop (body run while
// i < M and cond, loop-carried values fed back, scan outputs stacked), Scan
// (body run over slices of the scan inputs), Call (a sub-graph as a function),
// PackedDataBlock (a callback run over batches of unpacked sequences).
// Gradients run backward graphs made by autodiff (transforms/autodiff/):
// CallGrad calls one, IfGrad runs the one of the branch taken, and
// ScanGrad/LoopGrad run one per iteration in reverse (chain rule through the
// loop-carried values, sum over iterations for loop-invariant inputs).
#include "ops/controlflow.hpp"
#include "popart/graph.hpp"
#include "popart/ir.hpp"
#include "popart/opmanager.hpp"
#include "popart/tensor.hpp"
#include "shape_util.hpp"
#include <algorithm>

namespace popart {
namespace {

const TensorInfo &graphInputInfo(const Graph &g, size_t i) { return g.getTensor(g.getInputIds().at(i))->info; }
const TensorInfo &graphOutputInfo(const Graph &g, size_t i) { return g.getTensor(g.getOutputIds().at(i))->info; }

// Values are copied byte for byte between graphs: the type and the element
// count must agree (a declared [1] may stand for a scalar).
void checkCompatible(const TensorInfo &got, const TensorInfo &want, const std::string &what) {
  if (got.dataType() != want.dataType() || got.nelms() != want.nelms())
    throw error("{} is {} but {} is expected (PopART needs static types and shapes in control flow)", what,
                got.toString(), want.toString());
}

Shape withoutAxis(Shape s, int64_t axis) {
  s.erase(s.begin() + axis);
  return s;
}

// Scan-8 drops the batch axis 0 from states, and axes 0 and 1 from scan inputs.
Shape dropLeading(const Shape &s, size_t n) {
  if (s.size() < n) throw error("Scan-8 needs a batch axis 0{} on shape {}", n == 2 ? " and a sequence axis 1" : "", s);
  return Shape(s.begin() + static_cast<std::ptrdiff_t>(n), s.end());
}
Shape scanSliceShape(const Shape &s, int64_t axis, bool scan8) {
  return scan8 ? dropLeading(s, 2) : withoutAxis(s, axis);
}

// PackedDataBlock: packed data [total, ...rest] -> callback input [batch, maxLength, ...rest].
TensorInfo unpackedInfo(const TensorInfo &data, int64_t batch, int64_t maxLength) {
  Shape s{batch, maxLength};
  s.insert(s.end(), data.shape().begin() + 1, data.shape().end());
  return TensorInfo(data.dataType(), s);
}

} // namespace

// ---- SubgraphOp ----

Graph &SubgraphOp::subgraph(const std::string &attribute) const {
  return getIr().getGraph(attr<Attributes::Graph>(attribute).id);
}

bool SubgraphOp::hasSideEffect() const {
  for (const auto &name : subgraphAttributes()) {
    if (!attributes().hasAttribute(name)) continue;
    for (const auto &[id, op] : subgraph(name).getOps())
      if (op->hasSideEffect() || op->requiresRandomSeed()) return true;
  }
  return !modifiedInputs().empty();
}

std::vector<InIndex> SubgraphOp::modifiedInputs() const {
  const Attributes::Ints ins = attr<Attributes::Ints>("modifiedInputs", Attributes::Ints{});
  return std::vector<InIndex>(ins.begin(), ins.end());
}

bool SubgraphOp::modifies(InIndex in) const {
  const auto ins = modifiedInputs();
  return std::find(ins.begin(), ins.end(), in) != ins.end();
}

void SubgraphOp::checkModifiedInputs() const {
  for (InIndex i : modifiedInputs())
    if (!hasInput(i))
      throw error("attribute 'modifiedInputs' names input {}, which the op does not have ({} inputs)", i,
                  input->maxIndex());
}

void SubgraphOp::checkInputCount(const Graph &g, size_t onnxInputs) const {
  size_t want = onnxInputs + static_cast<size_t>(numImplicitInputs());
  if (g.getInputIds().size() != want)
    throw error("sub-graph '{}' has {} inputs, expected {} ({} from the ONNX spec + {} outer-scope tensors)",
                g.id, g.getInputIds().size(), want, onnxInputs, numImplicitInputs());
}

// ---- If ----

void IfOp::setup() {
  checkModifiedInputs();
  if (inInfo(0).nelms() != 1 || inInfo(0).dataType() != DataType::BOOL)
    throw error("cond must be one BOOL value, got {}", inInfo(0).toString());
  const Graph &thenG = subgraph("then_branch"), &elseG = subgraph("else_branch");
  checkInputCount(thenG, 0);
  checkInputCount(elseG, 0);
  size_t n = thenG.getOutputIds().size();
  if (elseG.getOutputIds().size() != n)
    throw error("then_branch has {} outputs but else_branch has {}", n, elseG.getOutputIds().size());
  if (static_cast<size_t>(output->maxIndex()) > n)
    throw error("the node has {} outputs but the branches have {}", output->maxIndex(), n);
  for (size_t i = 0; i < n; ++i) {
    const TensorInfo &a = graphOutputInfo(thenG, i), &b = graphOutputInfo(elseG, i);
    if (a != b)
      throw error("output {} is {} in then_branch but {} in else_branch: PopART needs both branches to give "
                  "the same type and shape", i, a.toString(), b.toString());
    if (hasOutput(static_cast<OutIndex>(i))) outInfo(static_cast<OutIndex>(i)) = a;
  }
}

// ---- Loop ----

std::vector<TensorInfo> LoopOp::subgraphInputInfos(const std::string &, const std::vector<TensorInfo> &ins) const {
  std::vector<TensorInfo> out{TensorInfo(DataType::INT64, {}), TensorInfo(DataType::BOOL, {})};
  for (size_t i = 2; i < ins.size(); ++i) out.push_back(ins[i]);
  return out;
}

void LoopOp::setup() {
  checkModifiedInputs();
  const Graph &body = subgraph("body");
  numCarried_ = std::max(numExplicitInputs() - 2, 0);
  checkInputCount(body, 2 + static_cast<size_t>(numCarried_));
  numScanOutputs_ = static_cast<int>(body.getOutputIds().size()) - 1 - numCarried_;
  if (numScanOutputs_ < 0)
    throw error("the body has {} outputs; it needs cond plus the {} loop-carried values", body.getOutputIds().size(),
                numCarried_);
  checkCompatible(graphInputInfo(body, 0), TensorInfo(DataType::INT64, {}), "body input 0 (iteration number)");
  checkCompatible(graphInputInfo(body, 1), TensorInfo(DataType::BOOL, {}), "body input 1 (cond)");
  checkCompatible(graphOutputInfo(body, 0), TensorInfo(DataType::BOOL, {}), "body output 0 (cond)");
  if (hasInput(1)) checkCompatible(inInfo(1), TensorInfo(DataType::BOOL, {}), "input 1 (cond)");
  if (!hasInput(0) && !hasInput(1))
    throw error("Loop has neither a trip count M nor a condition: it would never end");
  tripCount_ = -1;
  if (hasInput(0)) {
    checkCompatible(inInfo(0), TensorInfo(DataType::INT64, {}), "input 0 (M)");
    if (inIsConst(0)) tripCount_ = std::max<int64_t>(inConstInts(0).at(0), 0);
  }
  if (numScanOutputs_ > 0 && tripCount_ < 0) {
    if (!hasInput(0))
      throw error("Loop has {} scan outputs but no trip count M: PopART needs static shapes, so M must be "
                  "given as a constant", numScanOutputs_);
    throw error("Loop has {} scan outputs, so its trip count M (input 0, '{}') must be a constant known at "
                "compile time (PopART needs static shapes)", numScanOutputs_, inId(0));
  }
  for (int j = 0; j < numCarried_; ++j) {
    InIndex in = 2 + j;
    if (!hasInput(in)) throw error("loop-carried input {} is absent", in);
    checkCompatible(graphInputInfo(body, static_cast<size_t>(in)), inInfo(in), "body input " + std::to_string(in));
    checkCompatible(graphOutputInfo(body, 1 + static_cast<size_t>(j)), inInfo(in),
                    "body output " + std::to_string(1 + j) + " (loop-carried value " + std::to_string(j) + ")");
    if (hasOutput(j)) outInfo(j) = inInfo(in);
  }
  for (int j = 0; j < numScanOutputs_; ++j) {
    const TensorInfo &y = graphOutputInfo(body, 1 + static_cast<size_t>(numCarried_ + j));
    Shape s{tripCount_};
    s.insert(s.end(), y.shape().begin(), y.shape().end());
    if (hasOutput(numCarried_ + j)) outInfo(numCarried_ + j) = TensorInfo(y.dataType(), s);
  }
  if (output->maxIndex() > numCarried_ + numScanOutputs_)
    throw error("the node has {} outputs but the body gives {}", output->maxIndex(), numCarried_ + numScanOutputs_);
}

// ---- Scan ----

std::vector<TensorInfo> ScanOp::subgraphInputInfos(const std::string &, const std::vector<TensorInfo> &ins) const {
  const bool scan8 = opid.version == 8;
  const int first = scan8 ? 1 : 0;
  const int m = static_cast<int>(attr<Attributes::Int>("num_scan_inputs"));
  const int n = static_cast<int>(ins.size()) - first - m;
  if (m < 1 || n < 0)
    throw error("num_scan_inputs {} must be in [1, {}] (the node has {} inputs)", m,
                static_cast<int>(ins.size()) - first, ins.size());
  std::vector<int64_t> axes = attr<Attributes::Ints>("scan_input_axes", std::vector<int64_t>(m, 0));
  std::vector<TensorInfo> out;
  for (int i = 0; i < n + m; ++i) {
    const TensorInfo &x = ins[static_cast<size_t>(first + i)];
    if (!x.isSet()) return {};
    if (i < n) {
      out.push_back(scan8 ? TensorInfo(x.dataType(), dropLeading(x.shape(), 1)) : x);
      continue;
    }
    int64_t a = scan8 ? 1 : axes.size() == static_cast<size_t>(m) ? axes[static_cast<size_t>(i - n)] : 0;
    if (!scan8) a = shapeutil::normaliseAxis(a, x.rank(), "scan_input_axes value");
    out.emplace_back(x.dataType(), scanSliceShape(x.shape(), a, scan8));
  }
  return out;
}

void ScanOp::readAttributes(int m, int k) {
  auto list = [&](const char *name, int count) {
    auto v = attr<Attributes::Ints>(name, std::vector<int64_t>(static_cast<size_t>(count), 0));
    if (v.size() != static_cast<size_t>(count))
      throw error("attribute '{}' has {} values, expected {} (one per scan {})", name, v.size(), count,
                  std::string(name).find("output") != std::string::npos ? "output" : "input");
    return v;
  };
  const bool scan8 = opid.version == 8;
  for (const char *name : {"scan_input_axes", "scan_input_directions", "scan_output_axes", "scan_output_directions"})
    if (scan8 && attributes().hasAttribute(name)) throw error("attribute '{}' needs Scan-9 or later", name);
  if (!scan8 && attributes().hasAttribute("directions"))
    throw error("attribute 'directions' is Scan-8's; since Scan-9 it is 'scan_input_directions'");
  inReverse_ = list(scan8 ? "directions" : "scan_input_directions", m);
  outReverse_ = scan8 ? std::vector<int64_t>(static_cast<size_t>(k), 0) : list("scan_output_directions", k);
  inAxes_ = scan8 ? std::vector<int64_t>(static_cast<size_t>(m), 1) : list("scan_input_axes", m);
  outAxes_ = scan8 ? std::vector<int64_t>(static_cast<size_t>(k), 1) : list("scan_output_axes", k);
  if (opid.version == 9)
    for (auto *axes : {&inAxes_, &outAxes_})
      for (int64_t a : *axes)
        if (a < 0) throw error("negative scan axis {} needs Scan-11 or later", a);
  for (auto *dirs : {&inReverse_, &outReverse_})
    for (int64_t d : *dirs)
      if (d != 0 && d != 1) throw error("scan direction {} is not supported (0: forward, 1: reverse)", d);
}

void ScanOp::setup() {
  const Graph &body = subgraph("body");
  const int m = static_cast<int>(attr<Attributes::Int>("num_scan_inputs"));
  numStates_ = numExplicitInputs() - firstState() - m;
  if (m < 1 || numStates_ < 0)
    throw error("num_scan_inputs {} must be in [1, {}]", m, numExplicitInputs() - firstState());
  checkInputCount(body, static_cast<size_t>(numStates_ + m));
  const int k = static_cast<int>(body.getOutputIds().size()) - numStates_;
  if (k < 0) throw error("the body has {} outputs, fewer than the {} states", body.getOutputIds().size(), numStates_);
  readAttributes(m, k);
  setupScanInputs(body);
  setupStates(body);
  setupScanOutputs(body);
  if (output->maxIndex() > numStates_ + k)
    throw error("the node has {} outputs but the body gives {}", output->maxIndex(), numStates_ + k);
}

// Normalises the input axes; sets the sequence length (and Scan-8's batch size).
void ScanOp::setupScanInputs(const Graph &body) {
  const bool scan8 = opid.version == 8;
  batch_ = 1;
  seqLen_ = -1;
  for (int j = 0; j < numScanInputs(); ++j) {
    const InIndex in = firstState() + numStates_ + j;
    const Shape &s = inShape(in);
    int64_t &axis = inAxes_[static_cast<size_t>(j)];
    if (scan8) dropLeading(s, 2);
    else axis = shapeutil::normaliseAxis(axis, inRank(in), "scan_input_axes value");
    int64_t len = s[static_cast<size_t>(axis)];
    if (seqLen_ >= 0 && len != seqLen_)
      throw error("scan inputs have different lengths along their scan axes ({} and {})", seqLen_, len);
    seqLen_ = len;
    if (scan8 && j > 0 && s[0] != batch_)
      throw error("Scan-8 scan inputs have different batch sizes ({} and {})", batch_, s[0]);
    if (scan8) batch_ = s[0];
    checkCompatible(graphInputInfo(body, static_cast<size_t>(numStates_ + j)),
                    TensorInfo(inInfo(in).dataType(), scanSliceShape(s, axis, scan8)),
                    "body input " + std::to_string(numStates_ + j) + " (a slice of scan input " + std::to_string(j) + ")");
  }
  if (scan8 && hasInput(0))
    for (int64_t len : inConstInts(0))
      if (len != seqLen_)
        throw error("sequence_lens {} differs from the scan length {}: PopART supports only full-length sequences",
                    len, seqLen_);
}

void ScanOp::setupStates(const Graph &body) {
  const bool scan8 = opid.version == 8;
  for (int j = 0; j < numStates_; ++j) {
    const TensorInfo &x = inInfo(firstState() + j);
    if (scan8 && (x.rank() == 0 || x.shape()[0] != batch_))
      throw error("Scan-8 state {} has shape {}, expected batch size {} on axis 0", j, x.shape(), batch_);
    TensorInfo perBatch(x.dataType(), scan8 ? dropLeading(x.shape(), 1) : x.shape());
    checkCompatible(graphInputInfo(body, static_cast<size_t>(j)), perBatch, "body input " + std::to_string(j) + " (state)");
    checkCompatible(graphOutputInfo(body, static_cast<size_t>(j)), perBatch, "body output " + std::to_string(j) + " (state)");
    if (hasOutput(j)) outInfo(j) = x;
  }
}

// Scan output j stacks the body's y_t along its axis (Scan-8: [batch, seq, ...]).
void ScanOp::setupScanOutputs(const Graph &body) {
  for (int j = 0; j < numScanOutputs(); ++j) {
    const TensorInfo &y = graphOutputInfo(body, static_cast<size_t>(numStates_ + j));
    Shape s = y.shape();
    int64_t &axis = outAxes_[static_cast<size_t>(j)];
    if (opid.version == 8) {
      s.insert(s.begin(), {batch_, seqLen_});
    } else {
      axis = shapeutil::normaliseAxis(axis, y.rank() + 1, "scan_output_axes value");
      s.insert(s.begin() + axis, seqLen_);
    }
    if (hasOutput(numStates_ + j)) outInfo(numStates_ + j) = TensorInfo(y.dataType(), s);
  }
}

// ---- Call ----

void CallOp::setup() {
  checkModifiedInputs();
  const Graph &callee = subgraph("callee");
  const size_t n = static_cast<size_t>(numExplicitInputs());
  checkInputCount(callee, n);
  for (size_t i = 0; i < n; ++i) {
    if (!hasInput(static_cast<InIndex>(i))) throw error("input {} is absent; Call needs every callee input", i);
    checkCompatible(inInfo(static_cast<InIndex>(i)), graphInputInfo(callee, i),
                    "input " + std::to_string(i) + " ('" + inId(static_cast<InIndex>(i)) + "')");
  }
  if (static_cast<size_t>(output->maxIndex()) > callee.getOutputIds().size())
    throw error("the node has {} outputs but the callee '{}' gives {}", output->maxIndex(), callee.id,
                callee.getOutputIds().size());
  for (const auto &[i, t] : output->tensorMap()) outInfo(i) = graphOutputInfo(callee, static_cast<size_t>(i));
}

// ---- PackedDataBlock ----

void PackedDataBlockOp::readAttributes() {
  maxLengths_ = attr<Attributes::Ints>("maxSequenceLengths");
  if (maxLengths_.empty()) throw error("attribute 'maxSequenceLengths' is empty; it needs one entry per packed input");
  for (size_t i = 0; i < maxLengths_.size(); ++i)
    if (maxLengths_[i] < 1) throw error("maxSequenceLengths[{}] is {}, expected >= 1", i, maxLengths_[i]);
  batch_ = attr<Attributes::Int>("callbackBatchSize");
  if (batch_ < 1) throw error("attribute 'callbackBatchSize' is {}, expected >= 1", batch_);
  if (attr<Attributes::Int>("resultSize") < 0)
    throw error("attribute 'resultSize' is {}, expected >= 0", attr<Attributes::Int>("resultSize"));
}

std::vector<TensorInfo> PackedDataBlockOp::subgraphInputInfos(const std::string &,
                                                              const std::vector<TensorInfo> &ins) const {
  const auto maxLengths = attr<Attributes::Ints>("maxSequenceLengths", {});
  const int64_t batch = attr<Attributes::Int>("callbackBatchSize", 1);
  const bool valid = batch >= 1 && std::all_of(maxLengths.begin(), maxLengths.end(), [](int64_t m) { return m >= 1; });
  if (!valid || ins.size() != 3 * maxLengths.size() + 2) return {};  // setup() reports the problem
  std::vector<TensorInfo> out;
  for (size_t i = 0; i < maxLengths.size(); ++i) {
    const TensorInfo &data = ins[3 * i];
    if (!data.isSet() || data.rank() < 1) return {};
    out.push_back(unpackedInfo(data, batch, maxLengths[i]));
  }
  return out;
}

// Offsets and lengths: INT32 or INT64 vectors of one common length S.
void PackedDataBlockOp::checkIndexInput(InIndex in, const char *what) {
  const TensorInfo &x = inInfo(in);
  if ((x.dataType() != DataType::INT32 && x.dataType() != DataType::INT64) || x.rank() != 1)
    throw error("input {} ({} '{}') is {}, expected an INT32 or INT64 vector", in, what, inId(in), x.toString());
  if (numSequences_ >= 0 && x.shape()[0] != numSequences_)
    throw error("input {} ({} '{}') has {} entries but input 1 has {}: every offsets and lengths input needs one "
                "entry per sequence", in, what, inId(in), x.shape()[0], numSequences_);
  numSequences_ = x.shape()[0];
}

void PackedDataBlockOp::setupCallbackOutput(const Graph &callback) {
  if (callback.getOutputIds().size() != 1)
    throw error("the callback '{}' has {} outputs, expected 1", callback.id, callback.getOutputIds().size());
  const TensorInfo &y = graphOutputInfo(callback, 0);
  if (y.rank() < 2 || y.shape()[0] != batch_)
    throw error("the callback output is {}, expected shape [callbackBatchSize = {}, L, ...]", y.toString(), batch_);
  outLength_ = y.shape()[1];
  Shape s{attr<Attributes::Int>("resultSize")};
  s.insert(s.end(), y.shape().begin() + 2, y.shape().end());
  if (output->maxIndex() != 1 || !hasOutput(0))
    throw error("the node has {} outputs, PackedDataBlock gives exactly 1", output->n());
  outInfo(0) = TensorInfo(y.dataType(), s);
}

void PackedDataBlockOp::setup() {
  readAttributes();
  const int n = numPackedInputs();
  if (numExplicitInputs() != 3 * n + 2)
    throw error("the node has {} inputs, expected 3 * {} + 2 = {}: (data, offsets, lengths) for each of the {} "
                "packed inputs that maxSequenceLengths {} describes, then resultOffsets and resultLengths",
                numExplicitInputs(), n, 3 * n + 2, n, maxLengths_);
  for (InIndex i = 0; i < 3 * n + 2; ++i)
    if (!hasInput(i)) throw error("input {} is absent; PackedDataBlock needs every input", i);
  const Graph &callback = subgraph("callback");
  checkInputCount(callback, static_cast<size_t>(n));
  numSequences_ = -1;
  for (int i = 0; i < n; ++i) {
    const InIndex d = dataIn(i);
    if (inRank(d) < 1) throw error("input {} (data '{}') is a scalar, expected rank >= 1", d, inId(d));
    const TensorInfo want = unpackedInfo(inInfo(d), batch_, maxLengths_[static_cast<size_t>(i)]);
    const TensorInfo &got = graphInputInfo(callback, static_cast<size_t>(i));
    if (got != want)
      throw error("callback input {} is {}, expected {} ([callbackBatchSize, maxSequenceLengths[{}], ...] of "
                  "data input {} '{}')", i, got.toString(), want.toString(), i, d, inId(d));
    checkIndexInput(offsetsIn(i), "offsets");
    checkIndexInput(lengthsIn(i), "lengths");
  }
  checkIndexInput(resultOffsetsIn(), "resultOffsets");
  checkIndexInput(resultLengthsIn(), "resultLengths");
  setupCallbackOutput(callback);
}

// ---- Gradients ----

CallGradOp::CallGradOp(const CallOp &fwd, const GraphId &backward, SubgraphGradWiring wiring)
    : CallOp(internalOp("CallGrad"), fwd.settings), wiring_(std::move(wiring)) {
  attributes().setAttribute("callee", Attributes::Graph{backward});
}

IfGradOp::IfGradOp(const IfOp &fwd, const GraphId &thenGrad, const GraphId &elseGrad,
                   std::vector<std::vector<InIndex>> branchInputs, SubgraphGradWiring wiring)
    : SubgraphOp(internalOp("IfGrad"), fwd.settings), branchInputs_(std::move(branchInputs)),
      wiring_(std::move(wiring)) {
  attributes().setAttribute("then_branch", Attributes::Graph{thenGrad});
  attributes().setAttribute("else_branch", Attributes::Graph{elseGrad});
}

void IfGradOp::setup() {
  const Graph &thenG = subgraph("then_branch"), &elseG = subgraph("else_branch");
  for (int b = 0; b < 2; ++b) {
    const Graph &g = b == 0 ? thenG : elseG;
    if (g.getInputIds().size() != branchInputs(b).size())
      throw internal_error("IfGrad: graph '{}' has {} inputs, {} are bound", g.id, g.getInputIds().size(),
                           branchInputs(b).size());
    for (size_t i = 0; i < g.getInputIds().size(); ++i)
      checkCompatible(inInfo(branchInputs(b)[i]), graphInputInfo(g, i), "input of '" + g.id + "'");
  }
  for (const auto &[i, t] : output->tensorMap()) {
    outInfo(i) = graphOutputInfo(thenG, static_cast<size_t>(i));
    checkCompatible(graphOutputInfo(elseG, static_cast<size_t>(i)), outInfo(i), "else gradient " + std::to_string(i));
  }
}

LoopScanGradOp::LoopScanGradOp(const SubgraphOp &fwd, const GraphId &backward, IterationGradLayout layout,
                               SubgraphGradWiring wiring, std::map<OutIndex, TensorInfo> outInfos)
    : SubgraphOp(internalOp(fwd.opid.type + "Grad"), fwd.settings), layout_(std::move(layout)),
      wiring_(std::move(wiring)), outInfos_(std::move(outInfos)) {
  attributes().setAttribute("body", Attributes::Graph{backward});
}

void LoopScanGradOp::setup() {
  const Graph &body = subgraph("body");
  size_t bound = layout_.carried.size() + layout_.ins.size() + layout_.whole.size();
  if (body.getInputIds().size() != bound)
    throw internal_error("{}: the backward body has {} inputs, {} are bound", opid.type, body.getInputIds().size(),
                         bound);
  for (const auto &[i, t] : output->tensorMap()) outInfo(i) = outInfos_.at(i);
}

// Autodiff differentiates sub-graph ops itself (backward sub-graphs).
template <> struct detail::DefinesGradient<IfOp> : std::true_type {};
template <> struct detail::DefinesGradient<LoopOp> : std::true_type {};
template <> struct detail::DefinesGradient<ScanOp> : std::true_type {};
template <> struct detail::DefinesGradient<CallOp> : std::true_type {};
POPART_REGISTER_OP(IfOp, onnxOp("If", {1, 11, 13, 16, 19, 21}));
POPART_REGISTER_OP(LoopOp, onnxOp("Loop", {1, 11, 13, 16, 19, 21}));
POPART_REGISTER_OP(ScanOp, onnxOp("Scan", {8, 9, 11, 16, 19, 21}));
POPART_REGISTER_OP(CallOp, graphcoreOp("Call", {1}));
POPART_REGISTER_OP(PackedDataBlockOp, graphcoreOp("PackedDataBlock", {1}));
POPART_REGISTER_OP(CallGradOp, internalOp("CallGrad"));
POPART_REGISTER_OP(IfGradOp, internalOp("IfGrad"));
POPART_REGISTER_OP(LoopScanGradOp, internalOp("ScanGrad"));
POPART_REGISTER_OP(LoopScanGradOp, internalOp("LoopGrad"));
} // namespace popart
