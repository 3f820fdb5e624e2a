// Building and running the CPU programs of a prepared IR.
#include "devicex.hpp"
#include "core/registrant.hpp"
#include "kernels/dispatch.hpp"
#include "kernels/random_bits.hpp"
#include "memory_plan.hpp"
#include "replica_stepio.hpp"
#include "communicator.hpp"
#include "shared_update.hpp"
#include "ops/host_io.hpp"
#include "popart/dataflow.hpp"
#include "popart/error.hpp"
#include "popart/graph.hpp"
#include "popart/ir.hpp"
#include "popart/logging.hpp"
#include "popart/sessionoptions.hpp"
#include "popart/tensor.hpp"
#include "transforms/constfold.hpp"
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
#include <sys/sysinfo.h>
#include <unordered_set>

namespace popart::popx {
namespace {

bool isPersistent(const Tensor *t) {
  return t->tensorType() == TensorType::Variable || t->tensorType() == TensorType::Const ||
         t->tensorType() == TensorType::Stream;
}

// Adds `src` into `dst` element-wise (anchor Sum return type).
void accumulateInto(void *dst, const void *src, const TensorInfo &info) {
  int64_t n = info.nelms();
  auto add = [&](auto tag) {
    using T = decltype(tag);
    T *d = static_cast<T *>(dst);
    const T *s = static_cast<const T *>(src);
    for (int64_t i = 0; i < n; ++i) d[i] = static_cast<T>(d[i] + s[i]);
  };
  switch (info.dataType()) {
  case DataType::FLOAT: add(float{}); break;
  case DataType::DOUBLE: add(double{}); break;
  case DataType::INT32: add(int32_t{}); break;
  case DataType::INT64: add(int64_t{}); break;
  case DataType::UINT32: add(uint32_t{}); break;
  case DataType::FLOAT16: {
    auto *d = static_cast<float16_t *>(dst);
    auto *s = static_cast<const float16_t *>(src);
    for (int64_t i = 0; i < n; ++i) d[i] = float16_t(static_cast<float>(d[i]) + static_cast<float>(s[i]));
    break;
  }
  default: throw error("anchor return type Sum is not supported for type {}", info.data_type());
  }
}

/// The host's RAM and swap: a buffer larger than this can never be held. Checked before allocating, because
/// a lazy allocation may succeed and its first write then be killed (and a failed `new` aborts under ASan).
int64_t hostMemoryBytes() {
  struct sysinfo s {};
  if (sysinfo(&s) != 0) return std::numeric_limits<int64_t>::max();
  const unsigned long long unit = s.mem_unit ? s.mem_unit : 1, pages = 0ULL + s.totalram + s.totalswap;
  if (pages > static_cast<unsigned long long>(std::numeric_limits<int64_t>::max()) / unit)
    return std::numeric_limits<int64_t>::max();
  return static_cast<int64_t>(pages * unit);
}

/// Throws std::bad_alloc (Python: popart_host_out_of_memory_error, recovery action IPU_RESET, as a failed
/// allocation) when `nbytes` exceeds the host's memory, without attempting the allocation.
void checkHostCanHold(int64_t nbytes) {
  if (nbytes > hostMemoryBytes()) throw std::bad_alloc();
}

} // namespace

Block::Block(int64_t nbytes) : size(nbytes) {
  checkHostCanHold(nbytes);
  data = static_cast<char *>(std::aligned_alloc(kAlignment, static_cast<size_t>(alignUp(std::max<int64_t>(nbytes, 1)))));
  if (!data) throw memory_allocation_err("cannot allocate {} bytes", nbytes);
}
Block::~Block() { std::free(data); }

Devicex::Devicex(Ir &ir, int64_t localReplica, Communicator *comm)
    : ir_(ir), replica_(localReplica), comm_(comm), rng_(ir.randomState()) {}

Devicex::Devicex(Ir &ir, const Devicex &weights)
    : ir_(ir), replica_(weights.replica_), comm_(weights.comm_), weightsFrom_(&weights),
      autoStages_(weights.autoStages_), rng_(ir.randomState()) {}

bool Devicex::slicedUpdate(const Op *op) const { return shared_ && shared_->ops.count(op); }
bool Devicex::slicedGradient(const Tensor *t) const { return shared_ && shared_->grads.count(t); }

const Op *Devicex::productOf(const Tensor *t) const {
  if (!shared_) return nullptr;
  auto it = shared_->products.find(t);
  return it == shared_->products.end() ? nullptr : it->second;
}

std::optional<bool> Devicex::gathersAccumulation(const Op *p) const {
  if (!shared_) return std::nullopt;
  auto it = shared_->accumulations.find(p);
  return it == shared_->accumulations.end() ? std::nullopt : std::optional<bool>(it->second);
}

bool Devicex::summedGradient(const Tensor *t) const { return shared_ && shared_->summed.count(t); }

bool Devicex::productRunsInReduction(const Op *p) const {
  if (!shared_ || p->output->n() != 1) return false;
  const Tensor *x = p->outTensor(0);
  const auto &readers = x->consumers.getOps();
  if (readers.size() != 1) return false;
  const Op *r = readers.front();
  const InIndex i = r->input->indices(const_cast<Tensor *>(x)).front();
  return r->output->hasIndex(i) && productOf(r->outTensor(i)) == p;
}

const std::vector<const char *> *Devicex::peerBuffers(const Tensor *t) const {
  if (!peers_) return nullptr;
  auto it = peers_->find(t);
  return it == peers_->end() ? nullptr : &it->second;
}

void *Devicex::ownPeerBuffer(const Tensor *t) const {
  const auto *all = peerBuffers(t);
  // The entry of this replica, which it writes (the others only read theirs).
  return all ? const_cast<char *>((*all).at(static_cast<size_t>(communicator().globalOffset() + replica_))) : nullptr;
}

Communicator &Devicex::communicator() const {
  if (!comm_) throw internal_error("replica {} has no communicator (it was not created by an Executor)", replica_);
  return *comm_;
}
Devicex::~Devicex() = default;

TensorView Devicex::view(const Tensor *t) const {
  auto it = buffers_.find(t);
  if (it == buffers_.end())
    throw internal_error("tensor '{}' has no buffer (it was not planned)", t->id);
  return TensorView(it->second, t->info);
}

TensorView Devicex::scratch(const TensorInfo &info) {
  blocks_.push_back(std::make_unique<Block>(info.nbytes()));
  persistentBytes_ += blocks_.back()->size;
  return TensorView(blocks_.back()->data, info);
}

TensorView Devicex::workspace(const TensorInfo &info) {
  const int64_t offset = workspaceOffset_;
  char *p = workspace_.at(offset, info.nbytes());
  if (!p) return scratch(info);
  workspaceOffset_ = offset + alignUp(std::max<int64_t>(info.nbytes(), 1));
  return TensorView(p, info);
}

void Devicex::setOutTensor(const Op *op, OutIndex i, const TensorView &t) { outCopies_[op].emplace_back(i, t); }

void Devicex::copy(const TensorView &dst, const TensorView &src) {
  if (dst.raw() != src.raw()) std::memcpy(dst.raw(), src.raw(), static_cast<size_t>(dst.nbytes()));
}

void Devicex::allocatePersistent(const Tensor *t) {
  if (weightsFrom_ && t->tensorType() != TensorType::Stream) {  // a pipelining instance: shared state
    auto it = weightsFrom_->buffers_.find(t);
    if (it == weightsFrom_->buffers_.end())
      throw internal_error("pipelining instance: tensor '{}' has no buffer in the first instance", t->id);
    buffers_[t] = it->second;
    return;
  }
  if (void *own = ownPeerBuffer(t)) {  // a gradient accumulator the other replicas read in place
    buffers_[t] = own;
    persistentBytes_ += alignUp(t->info.nbytes());
    return;
  }
  if (sharedBuffers_) {  // a weight (or its optimizer state) every replica updates a slice of
    auto it = sharedBuffers_->find(t);
    if (it != sharedBuffers_->end()) {
      buffers_[t] = it->second;
      return;
    }
  }
  blocks_.push_back(std::make_unique<Block>(t->info.nbytes()));
  persistentBytes_ += blocks_.back()->size;
  buffers_[t] = blocks_.back()->data;
  if (t->tensorType() == TensorType::Const && t->hasTensorData() && t->info.nbytes() > 0)  // empty: data() may be null
    std::memcpy(buffers_[t], t->tensorData().data(), static_cast<size_t>(t->info.nbytes()));
}

namespace {

// An op writes t, or a view of t, in place.
bool modifiedByOps(const Tensor *t);

/// For each graph run by ops: how many ops run it, and one of them.
std::unordered_map<GraphId, std::pair<int, const Op *>> graphUsers(const Ir &ir) {
  std::unordered_map<GraphId, std::pair<int, const Op *>> users;
  auto use = [&](const GraphId &id, const Op *op) {
    auto &u = users[id];
    u.first++;
    u.second = op;
  };
  for (const Graph *h : ir.getAllGraphs())
    for (const auto &[id, op] : h->getOps())
      for (const auto &[name, v] : op->attributes().values()) {
        if (const auto *one = std::get_if<Attributes::Graph>(&v)) use(one->id, op.get());
        if (const auto *many = std::get_if<Attributes::Graphs>(&v))
          for (const auto &x : *many) use(x.id, op.get());
      }
  return users;
}

} // namespace

// A sub-graph run by a single Call works in its caller's memory instead of copies: an input the
// sub-graph does not modify (or that is passed by reference) is the caller's tensor, and an output
// that owns its memory is written straight into the caller's output. The Call's copies then see equal
// buffers and do nothing.
std::unordered_map<const Tensor *, void *> Devicex::callerBuffers(const Graph &g) {
  std::unordered_map<const Tensor *, void *> out;
  if (g.isMainGraph()) return out;
  if (!graphUsers_) graphUsers_ = std::make_unique<GraphUsers>(graphUsers(ir_));
  auto user = graphUsers_->find(g.id);
  // Only a sole Call (op input/output i is graph input/output i).
  if (user == graphUsers_->end() || user->second.first != 1) return out;
  const Op *site = user->second.second;
  if (site->opid.type != "Call" && site->opid.type != "CallGrad") return out;
  auto callerBuffer = [&](const Tensor *t) -> void * {
    auto it = buffers_.find(t);
    return it == buffers_.end() ? nullptr : it->second;
  };
  const auto &ins = g.getInputIds();
  std::unordered_set<const Tensor *> byRef;
  for (size_t i = 0; i < ins.size(); ++i)
    if (site->hasInput(static_cast<InIndex>(i)) && site->modifies(static_cast<InIndex>(i)))
      byRef.insert(site->inTensor(static_cast<InIndex>(i)));
  for (size_t i = 0; i < ins.size(); ++i) {
    const auto in = static_cast<InIndex>(i);
    if (!site->hasInput(in)) continue;
    const Tensor *t = g.getTensor(ins[i]), *caller = site->inTensor(in);
    const bool ref = site->modifies(in);
    // By value: only while neither the sub-graph nor a by-reference input changes the caller's tensor.
    if (!ref && (modifiedByOps(t) || byRef.count(caller))) continue;
    if (t->info.nbytes() != caller->info.nbytes()) continue;
    if (void *p = callerBuffer(caller)) out[t] = p;
  }
  // An output that is a whole view or in-place result of a tensor the sub-graph makes (ReluInplace of
  // a MatMul, say) places that tensor, its alias root, in the caller's output.
  std::unordered_map<const Tensor *, int> rootUses;
  for (const auto &id : g.getOutputIds()) rootUses[aliasRoot(g.getTensor(id))]++;
  const auto &outs = g.getOutputIds();
  for (size_t k = 0; k < outs.size(); ++k) {
    const auto o = static_cast<OutIndex>(k);
    const Tensor *t = g.getTensor(outs[k]), *root = aliasRoot(t);
    if (!site->hasOutput(o) || rootUses[root] != 1 || root->tensorType() != TensorType::ActGrad ||
        root->isGraphInput() || !root->hasProducer() || out.count(root))
      continue;
    if (root->info.nbytes() != site->outTensor(o)->info.nbytes()) continue;
    if (void *p = callerBuffer(site->outTensor(o))) out[root] = p;
  }
  return out;
}

void Devicex::planGraph(const Graph &g) {
  auto schedule = g.getOpSchedule();
  std::unordered_set<const Tensor *> keep;
  if (g.isMainGraph())
    for (const auto &id : ir_.getDataFlow().anchors())
      if (g.getTensors().contains(id)) keep.insert(g.getTensor(id));
  // Sub-graph inputs are written by the calling op (If/Loop/Scan/Call) before
  // the program runs, some only once for many runs (a Loop's outer-scope
  // inputs): they keep their memory for the whole program.
  if (!g.isMainGraph())
    for (const auto &id : g.getInputIds()) keep.insert(g.getTensor(id));
  // Products the gradient reductions compute (SharedUpdates::products) read their inputs then.
  if (g.isMainGraph() && shared_)
    for (const auto &[grad, p] : shared_->products) {
      const auto operands = sampleProduct(*p);
      keep.insert({operands->left, operands->right});
    }
  for (Tensor *t : g.getTensors().getAll())
    if (isPersistent(t)) allocatePersistent(t);
  std::unordered_set<const Tensor *> external;
  for (const auto &[t, p] : callerBuffers(g)) {
    buffers_[t] = p;
    external.insert(t);
  }
  if (g.isMainGraph() && peers_)  // gradients the other replicas read in place
    for (const auto &[t, all] : *peers_)
      if (t->tensorType() == TensorType::ActGrad) {
        buffers_[t] = ownPeerBuffer(t);
        plannedBytes_ += alignUp(t->info.nbytes());
        external.insert(t);
      }
  MemoryPlan plan = planMemory(g, schedule, keep, external);
  blocks_.push_back(std::make_unique<Block>(plan.arenaBytes));
  plannedBytes_ += plan.arenaBytes;
  char *arena = blocks_.back()->data;
  for (const auto &[t, off] : plan.offset) buffers_[t] = arena + off;
  for (const auto &[t, root] : plan.aliasRoot) buffers_[t] = buffers_.at(root);
}

Sequence Devicex::growOps(const std::vector<Op *> &ops) {
  Sequence prog;
  // Every op's workspace starts where the enclosing op's (if any) ends; the ops of a
  // sub-graph grown inside an op's grow end before that op's later workspaces start.
  const int64_t wsBase = workspaceOffset_;
  int64_t wsEnd = wsBase;
  struct Depth {
    Devicex &d;
    const int64_t &end;
    int64_t base;
    explicit Depth(Devicex &dv, const int64_t &e, int64_t b) : d(dv), end(e), base(b) { ++d.growDepth_; }
    ~Depth() { d.workspaceOffset_ = --d.growDepth_ > 0 ? end : base; }  // top level: programs run one at a time
  } depth(*this, wsEnd, wsBase);
  for (Op *op : ops) {
    std::unique_ptr<Opx> opx;
    withOpContext(*op, "creating the kernel (Opx) of", [&] { opx = OpxManager::createOpx(op, this); });
    Sequence steps;
    workspaceOffset_ = wsBase;
    withOpContext(*op, "lowering", [&] { opx->grow(steps); });
    wsEnd = std::max(wsEnd, workspaceOffset_);
    for (const auto &[i, t] : outCopies_[op]) {
      TensorView dst = view(op->outTensor(i));
      steps.add([dst, t] { copy(dst, t); });
    }
    opxs_.push_back(std::move(opx));
    if (steps.empty()) continue;
    stats_.push_back({op});
    size_t statIndex = stats_.size() - 1;
    prog.add([this, statIndex, steps, op] {
      auto t0 = std::chrono::steady_clock::now();
      try {
        steps.run();
      } catch (const internal_error &) {
        throw;
      } catch (const error &e) {
        throw runtime_error("while running {}: {}", op->debugName(), e.what());
      } catch (...) {  // a custom op's kernel (rethrows std::bad_alloc)
        throw runtime_error("while running {}: user code threw {}", op->debugName(), describeForeignException());
      }
      auto &s = stats_[statIndex];
      s.time += std::chrono::steady_clock::now() - t0;
      ++s.calls;
      if (!callbacks_.empty()) runCallbacks(op);
    });
  }
  return prog;
}

Sequence Devicex::growGraph(const Graph &g) {
  planGraph(g);
  std::vector<Op *> inner, outer;
  for (Op *op : g.getOpSchedule())
    (g.isMainGraph() && op->settings.executionContext == ExecutionContext::AccumulateOuterFragment ? outer : inner)
        .push_back(op);
  if (!outer.empty()) outerProgram_ = growOps(outer);
  if (!g.isMainGraph()) return growOps(inner);
  Sequence all;
  int64_t stage = -1;
  auto stageOf = [&](const Op *op) -> std::optional<int64_t> {
    if (op->settings.pipelineStage) return *op->settings.pipelineStage;
    if (op->settings.vgraphId) return *op->settings.vgraphId;
    auto it = autoStages_.find(op);
    if (it != autoStages_.end()) return it->second;
    return std::nullopt;
  };
  for (size_t i = 0; i < inner.size();) {
    if (auto own = stageOf(inner[i])) stage = *own;
    if (stage < 0) stage = 0;
    size_t j = i + 1;
    for (; j < inner.size(); ++j) {
      auto s = stageOf(inner[j]);
      if (s && *s != stage) break;
    }
    Sequence seg = growOps({inner.begin() + static_cast<std::ptrdiff_t>(i), inner.begin() + static_cast<std::ptrdiff_t>(j)});
    all.add(seg);
    segments_.push_back({stage, std::move(seg), static_cast<int64_t>(j - i)});
    i = j;
  }
  return all;
}

const Sequence &Devicex::graphProgram(const Graph &g) {
  auto it = programs_.find(g.id);
  if (it != programs_.end()) return it->second;
  Sequence s = growGraph(g);
  return programs_[g.id] = std::move(s);
}

void Devicex::addStreamReader(const Tensor *t, std::function<void(const void *)> rebind) {
  streamReaders_[t].push_back(std::move(rebind));
}

bool Devicex::readsInPlace(const Tensor *t) const {
  for (const auto &s : streams_)
    if (s.t == t) return !s.rebind.empty();
  return false;
}

// Every use of stream t re-points (addStreamReader), no op writes it or makes a view of it, no other tensor
// shares its buffer, it is no anchor, and the step IO provides its data.
bool Devicex::readableInPlace(const Tensor *t) const {
  auto it = streamReaders_.find(t);
  if (it == streamReaders_.end() || ir_.getDataFlow().isAnchored(t->id) || t->info.nbytes() == 0 ||
      ir_.getSessionOptions().syntheticDataMode != SyntheticDataMode::Off || modifiedByOps(t))
    return false;
  size_t uses = 0;
  for (Op *c : t->consumers.getOps())
    for (int i : c->input->indices(const_cast<Tensor *>(t))) {
      ++uses;
      for (const auto &[o, out] : c->output->tensorMap())
        if (c->aliases(i, o)) return false;
    }
  const void *own = buffers_.at(t);
  for (const auto &[other, p] : buffers_)
    if (p == own && other != t) return false;
  return uses == it->second.size();
}

void Devicex::prepare() {
  for (const Graph *g : ir_.getAllGraphs())
    for (const auto &[id, op] : g->getOps())
      if (auto *store = dynamic_cast<const HostStoreOp *>(op.get())) {
        if (!ir_.getDataFlow().isAnchored(store->streamId()))
          throw error("{} stores to host stream '{}', which is not an anchor of the DataFlow", op->debugName(),
                      store->streamId());
        anchorsStoredByOps_.insert(store->streamId());
      }
  graphProgram(ir_.getMainGraph());
  const auto &main = ir_.getMainGraph().getTensors();
  for (Tensor *t : main.getOfType(TensorType::Stream)) {
    Stream s{t, buffers_[t], {}, buffers_[t]};
    if (readableInPlace(t)) s.rebind = std::move(streamReaders_[t]);
    streams_.push_back(std::move(s));
  }
  streamReaders_.clear();
  for (const auto &id : ir_.getDataFlow().anchors())
    if (!anchorsStoredByOps_.count(id)) anchorTensors_.emplace_back(id, main.contains(id) ? main.get(id) : nullptr);
  prepared_ = true;
  logging::devicex::info("prepared: {} ops, {} bytes of activations, {} bytes persistent",
                         opxs_.size(), plannedBytes_, persistentBytes_);
}

void Devicex::weightsFromHost() {
  ++hostWrites_;
  for (Graph *g : ir_.getAllGraphs())
    for (Tensor *t : g->getTensors().getOfType(TensorType::Variable))
      // (empty: data() may be null)
      if (t->hasTensorData() && t->info.nbytes() > 0 && buffers_.count(t) && !sharedElsewhere(t))
        std::memcpy(buffers_[t], t->tensorData().data(), static_cast<size_t>(t->info.nbytes()));
  for (const auto &[t, copies] : dropped_)
    for (const auto &c : copies) c.refresh(t->tensorData().data());
}

void Devicex::writeTensorToDevice(const Tensor *t) {
  ++hostWrites_;
  auto it = buffers_.find(t);
  if (it != buffers_.end() && t->hasTensorData() && t->info.nbytes() > 0 && !sharedElsewhere(t))
    std::memcpy(it->second, t->tensorData().data(), static_cast<size_t>(t->info.nbytes()));
  auto d = dropped_.find(t);
  if (d != dropped_.end())
    for (const auto &c : d->second) c.refresh(t->tensorData().data());
}

void Devicex::addDerivedCopy(const Tensor *t, DerivedCopy copy) { derived_[t].push_back(std::move(copy)); }

int64_t Devicex::dropPlainCopies() {
  int64_t freed = 0;
  for (auto &[t, copies] : derived_) {
    int64_t reads = 0;
    for (Op *c : t->consumers.getOps()) reads += static_cast<int64_t>(c->input->indices(const_cast<Tensor *>(t)).size());
    auto it = buffers_.find(t);
    if (t->tensorType() != TensorType::Variable || !t->hasTensorData() || !hostWriteCounter(t) ||
        reads != static_cast<int64_t>(copies.size()) || it == buffers_.end())
      continue;
    for (auto &b : blocks_)
      if (b && b->data == it->second) {
        persistentBytes_ -= b->size;
        freed += b->size;
        b.reset();
      }
    buffers_.erase(it);
    for (const auto &c : copies) c.refresh(t->tensorData().data());  // the copies no longer read the freed buffer
    dropped_[t] = std::move(copies);
  }
  derived_.clear();
  return freed;
}

namespace {

// An op writes t, or a view of t, in place.
bool modifiedByOps(const Tensor *t) {
  for (Op *c : t->consumers.getOps())
    for (int i : c->input->indices(const_cast<Tensor *>(t))) {
      if (c->modifies(i)) return true;
      for (const auto &[o, out] : c->output->tensorMap())
        if (c->aliases(i, o) && modifiedByOps(out)) return true;
    }
  return false;
}

} // namespace

const uint64_t *Devicex::hostWriteCounter(const Tensor *t) const {
  if (weightsFrom_) return weightsFrom_->hostWriteCounter(t);  // the host writes the first instance
  const bool hostOnly = t->tensorType() == TensorType::Const ||
                        (t->tensorType() == TensorType::Variable && !ir_.isTraining());
  return hostOnly && !modifiedByOps(t) ? &hostWrites_ : nullptr;
}

void Devicex::weightsToHost() {
  for (Graph *g : ir_.getAllGraphs())
    for (Tensor *t : g->getTensors().getOfType(TensorType::Variable))
      if (t->hasTensorData() && t->info.nbytes() > 0 && buffers_.count(t))
        std::memcpy(t->tensorData().data(), buffers_[t], static_cast<size_t>(t->info.nbytes()));
  for (const auto &[t, copies] : dropped_) copies.front().writeBack(const_cast<Tensor *>(t)->tensorData().data());
}

namespace {

// SessionOptions::syntheticDataMode: inputs are made on the device instead of
// read from the host. FLOAT, FLOAT16, DOUBLE: zeros, N(0, 1) or U[-1, 1); other
// types (integers, BFLOAT16 and the 8/4/2-bit storage types): zeros.
void fillSynthetic(void *dst, const TensorInfo &info, SyntheticDataMode mode, uint64_t key) {
  std::memset(dst, 0, static_cast<size_t>(info.nbytes()));
  const DataType t = info.dataType();
  if (mode == SyntheticDataMode::Zeros || (t != DataType::FLOAT && t != DataType::FLOAT16 && t != DataType::DOUBLE))
    return;
  const int64_t n = info.nelms();
  auto value = [&](int64_t i) {
    const double u = cpu::randomUniform01(key, static_cast<uint64_t>(2 * i));
    if (mode == SyntheticDataMode::RandomUniform) return 2.0 * u - 1.0;
    const double v = cpu::randomUniform01(key, static_cast<uint64_t>(2 * i + 1));
    return std::sqrt(-2.0 * std::log1p(-u)) * std::cos(6.283185307179586 * v);
  };
  cpu::dispatchFloat(info.dataType(), [&](auto tag) {
    using T = decltype(tag);
    for (int64_t i = 0; i < n; ++i) static_cast<T *>(dst)[i] = T(static_cast<cpu::compute_t<T>>(value(i)));
  });
}

} // namespace

ConstVoidData Devicex::streamData(IStepIO &io, const TensorId &id, const TensorInfo &info) {
  const int64_t n = info.nelms();
  ConstVoidData d = io.in(id, n, false);
  if (!hostHolds(d.info.dataType(), info.dataType()))
    throw runtime_error("input '{}' has type {}, expected {}", id, d.info.data_type(), info.data_type());
  if (d.info.nelms() != n)
    throw runtime_error("input '{}' provides {} elements for one micro-batch, expected {} ({})", id,
                        d.info.nelms(), n, info.toString());
  return d;
}

void Devicex::readStream(IStepIO &io, const TensorId &id, const TensorInfo &info, void *dst) {
  const SyntheticDataMode synthetic = ir_.getSessionOptions().syntheticDataMode;
  if (synthetic != SyntheticDataMode::Off) {
    const uint64_t key = cpu::randomMix64(rng_.counter) + cpu::randomOpKey(id);
    fillSynthetic(dst, info, synthetic, key);
    return;
  }
  ConstVoidData d = streamData(io, id, info);
  std::memcpy(dst, d.data, static_cast<size_t>(info.nbytes()));
  io.inComplete(id, info.nelms());
}

void Devicex::beginMicroBatch(IStepIO &io, const MicroBatch &mb, uint64_t rngCounter) {
  io_ = &io;
  microBatch_ = mb;
  rng_ = {ir_.randomState().seed, rngCounter};
}

void Devicex::runMain() const { programs_.at(ir_.getMainGraph().id).run(); }

void Devicex::runOuter(uint64_t rngCounter) {
  rng_.counter = rngCounter;
  outerProgram_.run();
}

void Devicex::bindStream(Stream &s, const void *p) {
  if (s.bound == p) return;
  for (const auto &rebind : s.rebind) rebind(p);
  s.bound = p;
}

// A stream read in place points its readers at the array of a StepIOGeneric (whose arrays outlive the run;
// another IStepIO's data may be released at inComplete) when the data has the tensor's own type and is
// aligned for it; else its data is copied as for any stream.
void Devicex::readInputs() {
  const bool arrays = dynamic_cast<StepIOGeneric *>(io_) != nullptr;
  for (auto &s : streams_) {
    const bool inPlace = !s.rebind.empty() && arrays && (callbacks_.empty() || !callbacks_.count(s.t));
    if (!inPlace) {
      bindStream(s, s.buffer);
      readStream(*io_, s.t->id, s.t->info, s.buffer);
      if (!callbacks_.empty()) runCallbacks(s.t);
      continue;
    }
    ConstVoidData d = streamData(*io_, s.t->id, s.t->info);
    const auto align = static_cast<uintptr_t>(std::max<int64_t>(dataTypeSize(s.t->info.dataType()), 1));
    if (d.info.dataType() == s.t->info.dataType() && !d.owned && reinterpret_cast<uintptr_t>(d.data) % align == 0) {
      bindStream(s, d.data);
    } else {
      bindStream(s, s.buffer);
      std::memcpy(s.buffer, d.data, static_cast<size_t>(s.t->info.nbytes()));
    }
    io_->inComplete(s.t->id, s.t->info.nelms());
  }
}

void Devicex::endRun() {
  io_ = nullptr;
  for (auto &s : streams_) bindStream(s, s.buffer);  // the step IO's arrays may go away now
}

void Devicex::hostLoad(const TensorId &id, const TensorView &dst) {
  if (!io_) throw error("HostLoad of stream '{}' outside Session::run()", id);
  readStream(*io_, id, dst.info(), dst.raw());
}

void Devicex::hostStore(const TensorId &id, const TensorView &src) {
  if (!io_) throw error("HostStore of anchor '{}' outside Session::run()", id);
  writeAnchor(*io_, id, src.raw(), src.info(), microBatch_);
}

void Devicex::bindRemoteEntry(int64_t id, int64_t index, const Tensor *t) {
  if (t->tensorType() != TensorType::Variable || !buffers_.count(t))
    throw error("remote buffer {} entry {}: tensor '{}' is not a variable with a device buffer", id, index, t->id);
  boundEntries_[{id, index}] = t;
}

void *Devicex::remoteEntry(int64_t id, int64_t index, const TensorInfo &entry, bool forStore) {
  if (!boundEntries_.empty()) {
    auto bound = boundEntries_.find({id, index});
    if (bound != boundEntries_.end()) {
      const Tensor *t = bound->second;
      if (t->info != entry)
        throw runtime_error("remote buffer {} entry {} is variable '{}' ({}), but this op uses {}", id, index, t->id,
                            t->info.toString(), entry.toString());
      return buffers_.at(t);
    }
  }
  auto it = remoteBuffers_.find(id);
  if (it == remoteBuffers_.end()) {
    if (!forStore) throw runtime_error("remote buffer {} is loaded before anything was stored in it", id);
    it = remoteBuffers_.emplace(id, RemoteBuffer{entry, {}}).first;
  }
  RemoteBuffer &b = it->second;
  if (b.entry != entry)
    throw runtime_error("remote buffer {} holds entries of {}, but this op uses {}", id, b.entry.toString(),
                        entry.toString());
  const auto bytes = static_cast<size_t>(entry.nbytes());
  const int64_t stored = bytes ? static_cast<int64_t>(b.bytes.size() / bytes) : 0;
  if (index < 0 || (!forStore && index >= stored))
    throw runtime_error("offset {} is out of range for remote buffer {}, which holds {} stored entries", index, id,
                        stored);
  if (index >= stored) b.bytes.resize(bytes * static_cast<size_t>(index + 1));
  return b.bytes.data() + bytes * static_cast<size_t>(index);
}

void Devicex::writeAnchors() { writeAnchors(*io_, microBatch_); }

const Tensor *Devicex::anchorTensor(const std::pair<TensorId, const Tensor *> &a) const {
  return a.second ? a.second : ir_.getMainGraph().getTensor(a.first);  // absent: getTensor says so
}

void Devicex::writeAnchorsFrom(const Devicex &src, IStepIO &io, const MicroBatch &mb) {
  for (const auto &a : anchorTensors_) {
    const Tensor *t = anchorTensor(a);
    writeAnchor(io, t->id, src.buffers_.at(t), t->info, mb);
  }
}

void Devicex::writeAnchors(IStepIO &io, const MicroBatch &mb) {
  for (const auto &a : anchorTensors_) {
    const Tensor *t = anchorTensor(a);
    writeAnchor(io, t->id, buffers_.at(t), t->info, mb);
  }
}

void Devicex::writeAnchor(IStepIO &io, const TensorId &id, const void *src, const TensorInfo &info,
                          const MicroBatch &mb) {
  const AnchorReturnType &art = ir_.getDataFlow().art(id);
  if (art.id() == AnchorReturnTypeId::Sum) {
    auto &sum = anchorSums_[{id, mb.replica}];
    if (!sum) sum = std::make_unique<Block>(info.nbytes());
    if (mb.first) std::memcpy(sum->data, src, static_cast<size_t>(info.nbytes()));
    else accumulateInto(sum->data, src, info);
    if (!mb.last) return;
    src = sum->data;
  } else if (art.id() == AnchorReturnTypeId::Final && !mb.last) {
    return;
  } else if (art.id() == AnchorReturnTypeId::EveryN && (mb.batch + 1) % art.rp() != 0) {
    return;
  }
  writeAnchorValue(io, id, info, src);
}

void Devicex::addTensorCallback(const Tensor *t, std::function<void(void *)> fn, int64_t replica) {
  if (!buffers_.count(t)) throw error("tensor '{}' has no buffer on the device (was it optimised away?)", t->id);
  callbacks_[t].push_back({std::move(fn), replica});
}

void Devicex::runCallbacks(const Tensor *t) const {
  auto it = callbacks_.find(t);
  if (it == callbacks_.end()) return;
  for (const auto &cb : it->second)
    if (cb.replica == replica_) cb.fn(buffers_.at(t));
}

void Devicex::runCallbacks(const Op *op) const {
  for (const auto &[i, t] : op->output->tensorMap()) runCallbacks(t);
}

std::map<OutIndex, std::vector<char>> Devicex::evaluateConstOp(Op &op) {
  Devicex tmp(op.getIr());
  std::map<OutIndex, std::vector<char>> outs;
  for (const auto &[i, t] : op.input->tensorMap())
    tmp.buffers_[t] = t->hasTensorData() ? const_cast<char *>(t->tensorData().data()) : nullptr;
  for (const auto &[i, t] : op.output->tensorMap()) {
    checkHostCanHold(t->info.nbytes());
    outs[i].resize(static_cast<size_t>(std::max<int64_t>(t->info.nbytes(), 1)));
    tmp.buffers_[t] = outs[i].data();
  }
  auto opx = OpxManager::createOpx(&op, &tmp);
  Sequence steps;
  opx->grow(steps);
  for (const auto &[i, t] : tmp.outCopies_[&op]) {
    TensorView dst = tmp.view(op.outTensor(i));
    steps.add([dst, t] { copy(dst, t); });
  }
  steps.run();
  for (auto &[i, bytes] : outs) bytes.resize(static_cast<size_t>(op.outInfo(i).nbytes()));
  return outs;
}

namespace {

// Constant folding runs ops with their CPU kernels.
const bool constEvaluatorRegistered = [] {
  registerConstEvaluator({[](const OperatorIdentifier &id) { return OpxManager::hasOpx(id); },
                          [](Op &op) { return Devicex::evaluateConstOp(op); }});
  return true;
}();

} // namespace

} // namespace popart::popx
