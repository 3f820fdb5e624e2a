// Control flow on the CPU: each op runs the program of its sub-graph(s)
// (planned and grown once by the executor), copying values into the
// sub-graph's input buffers and results out of its output buffers. Loop and
// Scan stage loop-carried values in the op's outputs between iterations
// (body outputs -> outputs -> body inputs, safe when the body swaps them) and
// write each iteration's scan outputs into a slice of the op's outputs.
// PackedDataBlock checks every sequence's span first, then per batch gathers
// the sequences into the callback's zero-padded inputs (in parallel over the
// batch positions) and scatters the callback output rows into the result.
// Gradients: CallGrad is a Call; IfGrad binds the inputs of the branch taken;
// ScanGrad/LoopGrad run the backward body from the last iteration to the
// first, staging carried gradients in the op's outputs and summing the
// gradients of loop-invariant inputs in place.
#include "cpu/devicex.hpp"
#include "dispatch.hpp"
#include "ops/controlflow.hpp"
#include "popart/graph.hpp"
#include "popart/tensor.hpp"
#include "strided_copy.hpp"
#include <cstring>
#include <limits>

namespace popart::cpu {
namespace {

using popx::TensorView;

// The program of one sub-graph with the buffers of its inputs and outputs.
struct GraphRun {
  GraphRun(popx::Devicex &dv, const Graph &g) : program(&dv.graphProgram(g)) {
    for (const auto &id : g.getInputIds()) {
      const Tensor *t = g.getTensor(id);
      ins.push_back(dv.view(t));
      used.push_back(t->consumers.getTotal() > 0 || t->isGraphOutput());
    }
    for (const auto &id : g.getOutputIds()) outs.push_back(dv.view(g.getTensor(id)));
  }
  /// Copies `src` into sub-graph input i unless the sub-graph never reads it.
  void setInput(size_t i, const TensorView &src) const {
    if (used[i]) copyBytes(ins[i].raw(), src.raw(), src.nbytes());
  }
  void run() const { program->run(); }

  const popx::Sequence *program;
  std::vector<TensorView> ins, outs;
  std::vector<bool> used;
};

bool readBool(const TensorView &v) { return *static_cast<const uint8_t *>(v.raw()) != 0; }
void writeBool(const TensorView &v, bool b) { *static_cast<uint8_t *>(v.raw()) = b ? 1 : 0; }

// Op inputs [first, first + n) -> sub-graph inputs [to, to + n).
struct InputBinding {
  std::vector<std::pair<size_t, TensorView>> items;
  std::vector<std::pair<size_t, TensorView>> modified;  // by-reference inputs, copied back after the run
  void copyInto(const GraphRun &g) const {
    for (const auto &[i, v] : items) g.setInput(i, v);
  }
  /// A sub-graph input the graph never reads was not copied in, and nothing changed it: skipped.
  void copyBack(const GraphRun &g) const {
    for (const auto &[i, v] : modified)
      if (g.used[i]) copyBytes(v.raw(), g.ins[i].raw(), v.nbytes());
  }
};

InputBinding bindInputs(const popx::Opx &opx, const SubgraphOp &op, InIndex first, size_t to) {
  InputBinding b;
  for (InIndex i = first; i < op.input->maxIndex(); ++i) {
    b.items.emplace_back(to + static_cast<size_t>(i - first), opx.getInTensor(i));
    if (op.modifies(i)) b.modified.push_back(b.items.back());
  }
  return b;
}

// The op's output i, or scratch memory of `info` when the node omits it.
TensorView outputOrScratch(const popx::Opx &opx, OutIndex i, const TensorInfo &info) {
  return opx.hasOutput(i) ? opx.getOutTensor(i) : opx.createTensor(info);
}

// ---- If: run the branch cond selects, copy its outputs (and its by-reference inputs back). ----
class IfOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const auto &op = getOp<IfOp>();
    auto thenRun = std::make_shared<GraphRun>(*dv_p, op.subgraph("then_branch"));
    auto elseRun = std::make_shared<GraphRun>(*dv_p, op.subgraph("else_branch"));
    InputBinding implicit = bindInputs(*this, op, 1, 0);
    std::vector<std::pair<size_t, TensorView>> outs;
    for (const auto &[i, t] : op.output->tensorMap()) outs.emplace_back(static_cast<size_t>(i), getOutTensor(i));
    TensorView cond = getInTensor(0);
    prog.add([=] {
      const GraphRun &g = readBool(cond) ? *thenRun : *elseRun;
      implicit.copyInto(g);
      g.run();
      implicit.copyBack(g);
      for (const auto &[i, v] : outs) copyBytes(v.raw(), g.outs[i].raw(), v.nbytes());
    });
  }
};

// ---- Call: inputs -> callee -> outputs. ----
class CallOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const auto &op = getOp<CallOp>();
    auto callee = std::make_shared<GraphRun>(*dv_p, op.subgraph("callee"));
    InputBinding ins = bindInputs(*this, op, 0, 0);
    std::vector<std::pair<size_t, TensorView>> outs;
    for (const auto &[i, t] : op.output->tensorMap()) outs.emplace_back(static_cast<size_t>(i), getOutTensor(i));
    prog.add([=] {
      ins.copyInto(*callee);
      callee->run();
      ins.copyBack(*callee);
      for (const auto &[i, v] : outs) copyBytes(v.raw(), callee->outs[i].raw(), v.nbytes());
    });
  }
};

// ---- Loop ----
struct LoopState {
  std::shared_ptr<GraphRun> body;
  InputBinding implicit;
  std::vector<TensorView> initial, carried;  // op inputs 2.. and their staging buffers
  std::vector<TensorView> scans;              // scan outputs (null view: omitted)
  TensorView m, cond;                         // runtime M / initial cond (null: absent or constant)
  int64_t constTrips = -1, rows = 0;

  int64_t maxTrips() const {
    if (constTrips >= 0) return constTrips;
    if (m.raw()) return std::max<int64_t>(*static_cast<const int64_t *>(m.raw()), 0);
    return std::numeric_limits<int64_t>::max();
  }
  void iterate(int64_t i) const {
    const GraphRun &g = *body;
    const size_t n = carried.size();
    *static_cast<int64_t *>(g.ins[0].raw()) = i;
    for (size_t j = 0; j < n; ++j) g.setInput(2 + j, carried[j]);
    g.run();
    for (size_t j = 0; j < n; ++j) copyBytes(carried[j].raw(), g.outs[1 + j].raw(), carried[j].nbytes());
    for (size_t j = 0; j < scans.size(); ++j) {
      if (!scans[j].raw()) continue;
      if (i >= rows)
        throw error("Loop runs more than the {} iterations its scan outputs were shaped for", rows);
      const TensorView &y = g.outs[1 + n + j];
      std::memcpy(static_cast<char *>(scans[j].raw()) + i * y.nbytes(), y.raw(), static_cast<size_t>(y.nbytes()));
    }
  }
  void run() const {
    for (size_t j = 0; j < carried.size(); ++j) copyBytes(carried[j].raw(), initial[j].raw(), carried[j].nbytes());
    implicit.copyInto(*body);
    bool c = !cond.raw() || readBool(cond);
    int64_t i = 0;
    for (const int64_t trips = maxTrips(); i < trips && c; ++i) {
      writeBool(body->ins[1], c);
      iterate(i);
      c = readBool(body->outs[0]);  // decides even without a cond input, as onnxruntime does
    }
    implicit.copyBack(*body);
    for (const auto &s : scans)  // rows after an early exit
      if (s.raw() && i < rows)
        std::memset(static_cast<char *>(s.raw()) + i * (s.nbytes() / rows), 0,
                    static_cast<size_t>((rows - i) * (s.nbytes() / rows)));
  }
};

class LoopOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const auto &op = getOp<LoopOp>();
    auto st = std::make_shared<LoopState>();
    st->body = std::make_shared<GraphRun>(*dv_p, op.subgraph("body"));
    const int n = op.numCarried();
    st->implicit = bindInputs(*this, op, op.numExplicitInputs(), 2 + static_cast<size_t>(n));
    for (int j = 0; j < n; ++j) {
      st->initial.push_back(getInTensor(2 + j));
      st->carried.push_back(outputOrScratch(*this, j, inInfo(2 + j)));
    }
    for (int j = 0; j < op.numScanOutputs(); ++j)
      st->scans.push_back(hasOutput(n + j) ? getOutTensor(n + j) : TensorView());
    st->constTrips = op.tripCount();
    st->rows = std::max<int64_t>(op.tripCount(), 0);
    if (hasInput(0) && op.tripCount() < 0) st->m = getInTensor(0);
    if (hasInput(1)) st->cond = getInTensor(1);
    prog.add([st] { st->run(); });
  }
};

// ---- Scan ----

// Moves slice (b, t) of a tensor between its buffer and a contiguous one:
// index t on `axis` and, for Scan-8, index b on the batch axis 0.
class AxisSlicer {
public:
  AxisSlicer(const TensorInfo &full, int64_t axis, bool batched, bool toSlice) : toSlice_(toSlice) {
    const Shape &shape = full.shape();
    auto strides = rowMajorStrides(shape);
    const int64_t elem = dataTypeSize(full.dataType());
    Shape slice;
    std::vector<int64_t> fullStrides;
    for (size_t d = 0; d < shape.size(); ++d) {
      if (static_cast<int64_t>(d) == axis || (batched && d == 0)) continue;
      slice.push_back(shape[d]);
      fullStrides.push_back(strides[d]);
    }
    auto sliceStrides = rowMajorStrides(slice);
    copy_ = toSlice ? StridedCopy(slice, fullStrides, sliceStrides, 0, 0, elem)
                    : StridedCopy(slice, sliceStrides, fullStrides, 0, 0, elem);
    axisBytes_ = strides[static_cast<size_t>(axis)] * elem;
    batchBytes_ = batched ? strides[0] * elem : 0;
  }
  void run(void *full, void *slice, int64_t b, int64_t t) const {
    char *f = static_cast<char *>(full) + b * batchBytes_ + t * axisBytes_;
    toSlice_ ? copy_.run(f, slice) : copy_.run(slice, f);
  }

private:
  StridedCopy copy_;
  int64_t axisBytes_ = 0, batchBytes_ = 0;
  bool toSlice_;
};

// One scan input or output: the op tensor, its slicer and the body tensor index.
struct ScanSlot {
  size_t bodyIndex;
  TensorView full;
  AxisSlicer slicer;
  bool reverse;
};

struct ScanState {
  std::shared_ptr<GraphRun> body;
  InputBinding implicit;
  std::vector<TensorView> initial, states;  // full tensors (Scan-8: with the batch axis)
  std::vector<ScanSlot> xs, ys;             // omitted scan outputs have no slot
  int64_t batch = 1, length = 0;

  void step(int64_t b, int64_t t) const {
    const GraphRun &g = *body;
    auto at = [&](const ScanSlot &s) { return s.reverse ? length - 1 - t : t; };
    for (size_t j = 0; j < states.size(); ++j) {
      int64_t bytes = g.ins[j].nbytes();
      if (g.used[j]) std::memcpy(g.ins[j].raw(), static_cast<char *>(states[j].raw()) + b * bytes, static_cast<size_t>(bytes));
    }
    for (const auto &x : xs)
      if (g.used[x.bodyIndex]) x.slicer.run(x.full.raw(), g.ins[x.bodyIndex].raw(), b, at(x));
    g.run();
    for (size_t j = 0; j < states.size(); ++j) {
      int64_t bytes = g.outs[j].nbytes();
      std::memcpy(static_cast<char *>(states[j].raw()) + b * bytes, g.outs[j].raw(), static_cast<size_t>(bytes));
    }
    for (const auto &y : ys) y.slicer.run(y.full.raw(), g.outs[y.bodyIndex].raw(), b, at(y));
  }
  void run() const {
    for (size_t j = 0; j < states.size(); ++j) copyBytes(states[j].raw(), initial[j].raw(), states[j].nbytes());
    implicit.copyInto(*body);
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t t = 0; t < length; ++t) step(b, t);
  }
};

class ScanOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const auto &op = getOp<ScanOp>();
    const bool scan8 = op.opid.version == 8;
    const int first = op.firstState(), n = op.numStates();
    auto st = std::make_shared<ScanState>();
    st->body = std::make_shared<GraphRun>(*dv_p, op.subgraph("body"));
    st->implicit = bindInputs(*this, op, op.numExplicitInputs(), static_cast<size_t>(n + op.numScanInputs()));
    st->batch = op.batchSize();
    st->length = op.sequenceLength();
    for (int j = 0; j < n; ++j) {
      st->initial.push_back(getInTensor(first + j));
      st->states.push_back(outputOrScratch(*this, j, inInfo(first + j)));
    }
    for (int j = 0; j < op.numScanInputs(); ++j) {
      InIndex in = first + n + j;
      st->xs.push_back({static_cast<size_t>(n + j), getInTensor(in), AxisSlicer(inInfo(in), op.inAxis(j), scan8, true),
                        op.inReversed(j)});
    }
    for (int j = 0; j < op.numScanOutputs(); ++j) {
      if (!hasOutput(n + j)) continue;
      st->ys.push_back({static_cast<size_t>(n + j), getOutTensor(n + j),
                        AxisSlicer(outInfo(n + j), op.outAxis(j), scan8, false), op.outReversed(j)});
    }
    prog.add([st] { st->run(); });
  }
};

// ---- PackedDataBlock ----

// Rows [offset, offset + length) of a packed tensor.
struct RowSpan {
  int64_t offset = 0, length = 0;
};

// The offsets and lengths of one packed tensor (an input or the result), read
// and checked at every run: 0 <= length <= maxLength, rows inside [0, rows).
struct PackedIndex {
  TensorView offsets, lengths;
  int64_t maxLength = 0, rows = 0;
  std::string what, maxName, rowsName;  // for errors
  std::vector<RowSpan> spans;           // one per sequence, sized at grow()

  static int64_t at(const TensorView &v, size_t s) {
    return v.dtype() == DataType::INT64 ? static_cast<const int64_t *>(v.raw())[s]
                                        : static_cast<const int32_t *>(v.raw())[s];
  }
  void read() {
    for (size_t s = 0; s < spans.size(); ++s) {
      const int64_t off = at(offsets, s), len = at(lengths, s);
      if (len < 0 || len > maxLength)
        throw error("{}: sequence {} has length {}, expected 0 to {} ({})", what, s, len, maxLength, maxName);
      if (off < 0 || off > rows - len)  // no overflow for huge INT64 offsets
        throw error("{}: sequence {} has offset {} and length {}, so its rows are outside [0, {}) ({})", what, s, off,
                    len, rows, rowsName);
      spans[s] = {off, len};
    }
  }
};

// Bytes of one row (one index on axis 0) of a packed tensor.
int64_t packedRowBytes(const TensorInfo &info) {
  int64_t n = dataTypeSize(info.dataType());
  for (size_t d = 1; d < info.shape().size(); ++d) n *= info.shape()[d];
  return n;
}

// Batch positions are gathered in parallel in chunks of about this many bytes.
constexpr int64_t kPackedGatherChunkBytes = int64_t{1} << 16;

struct PackedInput {
  PackedIndex index;
  TensorView data, unpacked;  // unpacked: the callback input
  int64_t rowBytes = 0;

  // Batch position b of the callback input <- sequence s (s < 0: none), zero padded.
  void gather(int64_t b, int64_t s) const {
    char *dst = static_cast<char *>(unpacked.raw()) + b * index.maxLength * rowBytes;
    const RowSpan span = s < 0 ? RowSpan{} : index.spans[static_cast<size_t>(s)];
    if (span.length > 0)
      std::memcpy(dst, static_cast<const char *>(data.raw()) + span.offset * rowBytes,
                  static_cast<size_t>(span.length * rowBytes));
    std::memset(dst + span.length * rowBytes, 0, static_cast<size_t>((index.maxLength - span.length) * rowBytes));
  }
};

struct PackedDataBlockState {
  std::shared_ptr<GraphRun> callback;
  InputBinding implicit;
  std::vector<PackedInput> ins;
  PackedIndex resultIndex;
  TensorView result, out;  // out: the callback output
  int64_t batch = 1, outRowBytes = 0, gatherGrain = 1;

  void runBatch(int64_t first) const {
    const int64_t count = std::min<int64_t>(batch, static_cast<int64_t>(resultIndex.spans.size()) - first);
    popx::Opx::parallelFor(batch, [&](int64_t begin, int64_t end) {
      for (int64_t b = begin; b < end; ++b)
        for (const auto &in : ins) in.gather(b, b < count ? first + b : -1);
    }, gatherGrain);
    callback->run();
    for (int64_t b = 0; b < count; ++b) {  // in sequence order: later sequences win where ranges overlap
      const RowSpan &r = resultIndex.spans[static_cast<size_t>(first + b)];
      std::memcpy(static_cast<char *>(result.raw()) + r.offset * outRowBytes,
                  static_cast<const char *>(out.raw()) + b * resultIndex.maxLength * outRowBytes,
                  static_cast<size_t>(r.length * outRowBytes));
    }
  }
  void run() {
    for (auto &in : ins) in.index.read();
    resultIndex.read();
    zeroBytes(result.raw(), result.nbytes());
    implicit.copyInto(*callback);
    for (int64_t first = 0; first < static_cast<int64_t>(resultIndex.spans.size()); first += batch) runBatch(first);
  }
};

class PackedDataBlockOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const auto &op = getOp<PackedDataBlockOp>();
    auto st = std::make_shared<PackedDataBlockState>();
    st->callback = std::make_shared<GraphRun>(*dv_p, op.subgraph("callback"));
    const auto sequences = static_cast<size_t>(op.numSequences());
    int64_t blockBytes = 1;  // callback input bytes per batch position
    for (int i = 0; i < op.numPackedInputs(); ++i) {
      PackedInput in;
      in.index = {getInTensor(op.offsetsIn(i)), getInTensor(op.lengthsIn(i)), op.maxSequenceLength(i),
                  inShape(op.dataIn(i))[0], "packed input " + std::to_string(i) + " ('" + op.inId(op.dataIn(i)) + "')",
                  "maxSequenceLengths[" + std::to_string(i) + "]", "the rows of the data",
                  std::vector<RowSpan>(sequences)};
      in.data = getInTensor(op.dataIn(i));
      in.unpacked = st->callback->ins[static_cast<size_t>(i)];
      in.rowBytes = packedRowBytes(inInfo(op.dataIn(i)));
      blockBytes += in.index.maxLength * in.rowBytes;
      st->ins.push_back(std::move(in));
    }
    st->implicit = bindInputs(*this, op, op.numExplicitInputs(), static_cast<size_t>(op.numPackedInputs()));
    st->resultIndex = {getInTensor(op.resultOffsetsIn()), getInTensor(op.resultLengthsIn()),
                       op.callbackOutputLength(), outShape(0)[0], "resultOffsets/resultLengths",
                       "the callback output length", "resultSize", std::vector<RowSpan>(sequences)};
    st->result = getOutTensor(0);
    st->out = st->callback->outs[0];
    st->batch = op.callbackBatchSize();
    st->outRowBytes = packedRowBytes(outInfo(0));
    st->gatherGrain = std::max<int64_t>(1, kPackedGatherChunkBytes / blockBytes);
    prog.add([st] { st->run(); });
  }
};

// ---- IfGrad: the backward graph of the branch taken, on its own inputs. ----
class IfGradOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const auto &op = getOp<IfGradOp>();
    std::shared_ptr<GraphRun> runs[2];
    InputBinding binds[2];
    for (int b = 0; b < 2; ++b) {
      runs[b] = std::make_shared<GraphRun>(*dv_p, op.subgraph(b == 0 ? "then_branch" : "else_branch"));
      const auto &ins = op.branchInputs(b);
      for (size_t i = 0; i < ins.size(); ++i) binds[b].items.emplace_back(i, getInTensor(ins[i]));
    }
    std::vector<std::pair<size_t, TensorView>> outs;
    for (const auto &[i, t] : op.output->tensorMap()) outs.emplace_back(static_cast<size_t>(i), getOutTensor(i));
    TensorView cond = getInTensor(0);
    prog.add([=] {
      const int b = readBool(cond) ? 0 : 1;
      binds[b].copyInto(*runs[b]);
      runs[b]->run();
      for (const auto &[i, v] : outs) copyBytes(v.raw(), runs[b]->outs[i].raw(), v.nbytes());
    });
  }
};

// ---- ScanGrad / LoopGrad ----

void accumulateLoopGrad(const TensorView &acc, const TensorView &x) {
  dispatchFloat(acc.info().dataType(), [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    T *a = acc.data<T>();
    const T *b = x.data<T>();
    popx::Opx::parallelFor(acc.nelms(), [a, b](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) a[i] = static_cast<T>(static_cast<C>(a[i]) + static_cast<C>(b[i]));
    });
  });
}

struct IterationGradState {
  struct Carry {
    size_t bodyIn, bodyOut;
    TensorView init, value;  // value: the op output staging the carried gradient
  };
  std::shared_ptr<GraphRun> body;
  InputBinding whole;
  std::vector<Carry> carried;
  std::vector<ScanSlot> xs, ys;
  std::vector<std::pair<size_t, TensorView>> sums;
  TensorView mask;
  int64_t length = 0;

  void step(int64_t t) const {
    const GraphRun &g = *body;
    auto at = [&](const ScanSlot &s) { return s.reverse ? length - 1 - t : t; };
    for (const auto &c : carried) g.setInput(c.bodyIn, c.value);
    for (const auto &x : xs)
      if (g.used[x.bodyIndex]) x.slicer.run(x.full.raw(), g.ins[x.bodyIndex].raw(), 0, at(x));
    g.run();
    for (const auto &c : carried) copyBytes(c.value.raw(), g.outs[c.bodyOut].raw(), c.value.nbytes());
    for (const auto &y : ys) y.slicer.run(y.full.raw(), g.outs[y.bodyIndex].raw(), 0, at(y));
    for (const auto &[j, acc] : sums) accumulateLoopGrad(acc, g.outs[j]);
  }
  void run() const {
    for (const auto &c : carried) copyBytes(c.value.raw(), c.init.raw(), c.value.nbytes());
    for (const auto &[j, acc] : sums) zeroBytes(acc.raw(), acc.nbytes());
    if (mask.raw())  // rows of iterations that did not run get no gradient
      for (const auto &y : ys) zeroBytes(y.full.raw(), y.full.nbytes());
    whole.copyInto(*body);
    for (int64_t t = length - 1; t >= 0; --t)
      if (!mask.raw() || static_cast<const uint8_t *>(mask.raw())[t]) step(t);
  }
};

class LoopScanGradOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const auto &op = getOp<LoopScanGradOp>();
    const IterationGradLayout &l = op.layout();
    auto st = std::make_shared<IterationGradState>();
    st->body = std::make_shared<GraphRun>(*dv_p, op.subgraph("body"));
    st->length = l.length;
    for (const auto &c : l.carried)
      st->carried.push_back({static_cast<size_t>(c.bodyIn), static_cast<size_t>(c.bodyOut), getInTensor(c.init),
                             outputOrScratch(*this, c.final, inInfo(c.init))});
    for (const auto &s : l.ins)
      st->xs.push_back({static_cast<size_t>(s.body), getInTensor(s.op), AxisSlicer(inInfo(s.op), s.axis, false, true),
                        s.reverse});
    for (const auto &s : l.outs)
      if (hasOutput(s.op))
        st->ys.push_back({static_cast<size_t>(s.body), getOutTensor(s.op),
                          AxisSlicer(outInfo(s.op), s.axis, false, false), s.reverse});
    for (const auto &[j, in] : l.whole) st->whole.items.emplace_back(static_cast<size_t>(j), getInTensor(in));
    for (const auto &[j, out] : l.summed)
      if (hasOutput(out)) st->sums.emplace_back(static_cast<size_t>(j), getOutTensor(out));
    if (l.mask >= 0) st->mask = getInTensor(l.mask);
    prog.add([st] { st->run(); });
  }
};

} // namespace
static popx::OpxCreator<IfOpx> ifOpxCreator(onnxOp("If"));
static popx::OpxCreator<LoopOpx> loopOpxCreator(onnxOp("Loop"));
static popx::OpxCreator<ScanOpx> scanOpxCreator(onnxOp("Scan"));
static popx::OpxCreator<CallOpx> callOpxCreator(graphcoreOp("Call"));
static popx::OpxCreator<PackedDataBlockOpx> packedDataBlockOpxCreator(graphcoreOp("PackedDataBlock"));
static popx::OpxCreator<CallOpx> callGradOpxCreator(internalOp("CallGrad"));
static popx::OpxCreator<IfGradOpx> ifGradOpxCreator(internalOp("IfGrad"));
static popx::OpxCreator<LoopScanGradOpx> scanGradOpxCreator(internalOp("ScanGrad"));
static popx::OpxCreator<LoopScanGradOpx> loopGradOpxCreator(internalOp("LoopGrad"));
} // namespace popart::cpu
