#include "executor.hpp"
#include "communicator.hpp"
#include "process_communicator.hpp"
#include "ops/host_io.hpp"
#include "popart/dataflow.hpp"
#include "popart/error.hpp"
#include "popart/graph.hpp"
#include "popart/logging.hpp"
#include "popart/sessionoptions.hpp"
#include "popart/tensor.hpp"
#include "pipeline_runner.hpp"
#include "replica_stepio.hpp"
#include "replica_threads.hpp"
#include "shared_update.hpp"
#include "startup_pages.hpp"
#include <set>
#include <algorithm>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <string>
#include <omp.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace popart::popx {
namespace {

int64_t readTicks() {
#if defined(__x86_64__)
  return static_cast<int64_t>(__rdtsc());
#else
  return std::chrono::steady_clock::now().time_since_epoch().count();
#endif
}

bool isHostIO(const Op &op) {
  return dynamic_cast<const HostLoadOp *>(&op) || dynamic_cast<const HostStoreOp *>(&op);
}

// Ops exchanging data with the other replicas (a var update with sharded state all-gathers its weight).
bool isCollective(const Op &op) {
  if (op.opid.type == "OptimizerVarUpdate") return op.attr<Attributes::Int>("stateShards", 1) > 1;
  return op.opid.type.rfind("Replicated", 0) == 0 && op.opid.domain == "ai.graphcore";
}

// The first op of the IR that matches pred, or null.
const Op *findOp(Ir &ir, const std::function<bool(const Op &)> &pred) {
  for (const Graph *g : ir.getAllGraphs())
    for (const auto &[id, op] : g->getOps())
      if (pred(*op)) return op.get();
  return nullptr;
}

} // namespace

namespace {

// Replicas of this process only, or (enableDistributedReplicatedGraphs) of all
// the processes of the registered process group.
std::unique_ptr<Communicator> makeCommunicator(const Ir &ir) {
  const auto &o = ir.getSessionOptions();
  if (!o.enableDistributedReplicatedGraphs) return std::make_unique<LocalCommunicator>(o.replicationFactor());
  auto group = processGroup();
  if (!group)
    throw error("enableDistributedReplicatedGraphs needs a process group: run the script under mpiexec with "
                "mpi4py installed (pip install popart-cpu[distributed]); the popart Python sessions set it up");
  return std::make_unique<ProcessCommunicator>(o.replicationFactor(), o.globalReplicationFactor,
                                               o.globalReplicaOffset, std::move(group));
}

// What every process of a distributed session must agree on: the scheduled
// ops with their tensor types and shapes, and the step options (not weight values).
uint64_t programFingerprint(Ir &ir) {
  std::string s;
  const auto &o = ir.getSessionOptions();
  s += std::to_string(ir.getDataFlow().batchesPerStep()) + "/" + std::to_string(o.getAccumulationFactor()) + "/" +
       std::to_string(o.replicationFactor()) + "/" + std::to_string(o.getGlobalReplicationFactor()) + ";";
  for (const Graph *g : ir.getAllGraphs())
    for (const Op *op : g->getOpSchedule()) {
      s += op->opid.domain + "." + op->opid.type + "(";
      for (const auto &[i, t] : op->input->tensorMap()) s += t->info.toString() + ",";
      s += ")";
    }
  return std::hash<std::string>{}(s);
}

// VirtualGraphMode::Auto for a pipelined model without annotations: forward
// ops split in schedule order into n stages of about equal output size; a
// backward op goes with the latest stage among the tensors it touches (the
// gradient of x counts as x). Unplaced ops join the stage before them.
std::unordered_map<const Op *, int64_t> autoStages(Ir &ir, int64_t n) {
  std::unordered_map<const Op *, int64_t> stages;
  const auto schedule = ir.getMainGraph().getOpSchedule();
  size_t forwardEnd = schedule.size();
  if (ir.isTraining())
    for (size_t i = 0; i < schedule.size(); ++i)
      for (const auto &[k, t] : schedule[i]->output->tensorMap())
        if (t->id == ir.getFinalLossId()) forwardEnd = i + 1;
  auto cost = [](const Op *op) {
    int64_t c = 1;
    for (const auto &[k, t] : op->output->tensorMap()) c += t->info.nelms();
    return c;
  };
  int64_t total = 0, done = 0;
  for (size_t i = 0; i < forwardEnd; ++i) total += cost(schedule[i]);
  std::unordered_map<TensorId, int64_t> tensorStage;
  for (size_t i = 0; i < forwardEnd; ++i) {
    const int64_t s = std::min<int64_t>(n - 1, done * n / std::max<int64_t>(total, 1));
    done += cost(schedule[i]);
    stages[schedule[i]] = s;
    for (const auto &[k, t] : schedule[i]->input->tensorMap()) tensorStage.emplace(t->id, s);
    for (const auto &[k, t] : schedule[i]->output->tensorMap()) tensorStage[t->id] = s;
  }
  const std::string grad = reservedGradientPrefix();
  auto stageOf = [&](const TensorId &id) -> int64_t {
    auto it = tensorStage.find(id.rfind(grad, 0) == 0 ? id.substr(grad.size()) : id);
    return it == tensorStage.end() ? -1 : it->second;
  };
  for (size_t i = forwardEnd; i < schedule.size(); ++i) {
    int64_t s = -1;
    for (const auto &[k, t] : schedule[i]->input->tensorMap()) s = std::max(s, stageOf(t->id));
    for (const auto &[k, t] : schedule[i]->output->tensorMap()) s = std::max(s, stageOf(t->id));
    if (s >= 0) stages[schedule[i]] = s;
  }
  return stages;
}

bool annotated(Ir &ir) {
  for (const Op *op : ir.getMainGraph().getOpSchedule())
    if (op->settings.pipelineStage || op->settings.vgraphId) return true;
  return false;
}

// Runs fn; a popart exception it throws is thrown again, of the same type,
// with "replica r: " before its message (the replica threads' errors).
void namingReplica(int64_t replica, const std::function<void()> &fn) {
  const std::string who = "replica " + std::to_string(replica) + ": ";
  try {
    fn();
  } catch (const memory_allocation_err &) {
    throw;  // carries its report
  } catch (const internal_error &e) {
    throw internal_error(who + e.what());
  } catch (const runtime_error &e) {
    throw runtime_error(who + e.what());
  } catch (const error &e) {
    throw error(who + e.what());
  }
}

// The type and shape of one value of each anchor (what a HostStore op stores, if one does).
std::map<TensorId, TensorInfo> anchorInfos(Ir &ir) {
  std::map<TensorId, TensorInfo> anchors;
  for (const auto &id : ir.getDataFlow().anchors()) {
    const HostStoreOp *store = findHostStore(ir, id);
    anchors[id] = store ? store->inInfo(0) : ir.getTensor(id)->info;
  }
  return anchors;
}

// The host streams a replica of a program with host IO ops reads (main-graph
// stream tensors and HostLoad ops), with their elements per read and reads per
// micro-batch; in an explicit program, reads per run: batchesPerStep (a
// replica's reads wrap after them). False when a HostLoad op of a program that
// is not explicit sits in a subgraph: its reads per micro-batch are unknown.
bool hostStreamReads(Ir &ir, std::map<TensorId, std::pair<int64_t, int64_t>> &reads) {
  const bool explicitProgram = ir.isExplicitProgram();
  for (const Graph *g : ir.getAllGraphs())
    for (const auto &[id, op] : g->getOps())
      if (dynamic_cast<const HostLoadOp *>(op.get()) && !explicitProgram && g != &ir.getMainGraph()) return false;
  if (ir.getSessionOptions().syntheticDataMode != SyntheticDataMode::Off) return true;  // inputs are made on the device
  const int64_t perRun = ir.getDataFlow().batchesPerStep();
  auto add = [&](const TensorId &id, int64_t nelms) {
    auto &r = reads[id];
    r.first = nelms;
    r.second = explicitProgram ? perRun : r.second + 1;
  };
  for (Tensor *t : ir.getMainGraph().getTensors().getOfType(TensorType::Stream)) add(t->id, t->info.nelms());
  for (const Graph *g : ir.getAllGraphs())
    for (const auto &[id, op] : g->getOps())
      if (auto *load = dynamic_cast<const HostLoadOp *>(op.get())) add(load->streamId(), load->outInfo(0).nelms());
  return true;
}

} // namespace

Executor::Executor(Ir &ir) : Executor(ir, makeCommunicator(ir)) {}

Executor::Executor(Ir &ir, std::unique_ptr<Communicator> comm) : ir_(ir), comm_(std::move(comm)) {
  releaseStartupPages();
  for (int64_t r = 0; r < comm_->localReplicas(); ++r)
    replicas_.push_back(std::make_unique<Devicex>(ir, r, comm_.get()));
}

Executor::~Executor() = default;

namespace {

// Variables with VariableSettings, and optimizer state sharded over the
// replicas (replicated tensor sharding: each replica its own part, as a
// Variable with a value per replica).
std::vector<std::pair<Tensor *, VariableSettings>> groupedVariables(Ir &ir) {
  std::vector<std::pair<Tensor *, VariableSettings>> out;
  const auto &tensors = ir.getMainGraph().getTensors();
  for (const auto &[id, vs] : nonDefaultVariableSettings(ir))
    if (tensors.contains(id) && tensors.get(id)->hasTensorData()) out.emplace_back(tensors.get(id), vs);
  const VariableSettings perReplica(CommGroup(CommGroupType::Ungrouped, 1), VariableRetrievalMode::AllReplicas);
  if (!ir.isTraining()) return out;
  for (const auto &[id, op] : ir.getMainGraph().getOps()) {
    if (op->opid.type != "OptimizerVarUpdate" || op->attr<Attributes::Int>("stateShards", 1) < 2) continue;
    for (const auto &[i, t] : op->input->tensorMap())
      if (i >= 3 && t->tensorType() == TensorType::Variable && t->info.rank() == 1 && t->hasTensorData())
        out.emplace_back(t, perReplica);
  }
  return out;
}

} // namespace

int Executor::threadsPerReplica() const { return threads_ ? threads_->threadsEach() : omp_get_max_threads(); }

void Executor::prepare() {
  if (auto *pc = dynamic_cast<ProcessCommunicator *>(comm_.get()))
    pc->checkSameProgram(programFingerprint(ir_), "the model and session options (ops, shapes, batchesPerStep, "
                                                  "accumulation and replication factors)");
  const int64_t R = localReplicas();
  const auto &o = ir_.getSessionOptions();
  grouped_ = groupedVariables(ir_);
  if (o.enablePipelining && o.virtualGraphMode == VirtualGraphMode::Auto && virtualGraphs_ > 1 && !annotated(ir_)) {
    const auto stages = autoStages(ir_, virtualGraphs_);
    for (auto &d : replicas_) d->setAutoStages(stages);
  }
  if (R > 1) {
    const Op *hostIO = findOp(ir_, isHostIO);
    if (hostIO && hostStreamReads(ir_, hostReads_)) {
      // Each replica reads and writes the host streams through its own view.
      replicaIO_ = std::make_unique<ReplicaStepIO>(R, anchorInfos(ir_));
    } else if (hostIO) {
      // A HostLoad in a subgraph reads an unknown number of times per micro-batch: the replicas
      // read the host streams in turn, running one after the other.
      const Op *load = findOp(ir_, [this](const Op &op) {
        return dynamic_cast<const HostLoadOp *>(&op) && &op.getGraph() != &ir_.getMainGraph();
      });
      if (const Op *c = findOp(ir_, isCollective))
        throw error("{} exchanges data between replicas, but {} reads a host stream inside a subgraph, which makes "
                    "the {} replicas run one after the other; remove one of them",
                    c->debugName(), load->debugName(), R);
      sequential_ = true;
    }
    threads_ = std::make_unique<ReplicaThreads>(R, std::max(1, omp_get_max_threads() / static_cast<int>(R)));
  }
  shareWeights();
  if (threads_) threads_->runEach([&](int64_t r) { replicas_[static_cast<size_t>(r)]->prepare(); });
  else replicas_.front()->prepare();
  std::string why;
  if (ir_.getSessionOptions().enablePipelining) {
    if (pipelineApplies(why)) {
      const auto &segs = replicas_.front()->segments();
      std::set<int64_t> stages;
      for (const auto &s : segs) stages.insert(s.stage);
      const int64_t perRun = ir_.isTraining() ? ir_.getSessionOptions().getAccumulationFactor()
                                              : ir_.getDataFlow().batchesPerStep() *
                                                    ir_.getSessionOptions().getAccumulationFactor();
      const int64_t K = std::max<int64_t>(1, std::min<int64_t>(perRun, static_cast<int64_t>(segs.size())));
      const int threads = std::max(1, omp_get_max_threads() / static_cast<int>(stages.size() * R));
      for (auto &replica : replicas_) {  // each replica its own pipeline
        std::vector<Devicex *> instances{replica.get()};
        for (int64_t k = 1; k < K; ++k) {
          pipelineInstances_.push_back(std::make_unique<Devicex>(ir_, *replica));
          pipelineInstances_.back()->prepare();
          instances.push_back(pipelineInstances_.back().get());
        }
        pipelines_.push_back(std::make_unique<PipelineRunner>(instances, threads));
      }
      if (R > 1) replicaIO_ = std::make_unique<ReplicaStepIO>(R, anchorInfos(ir_));
    } else {
      logging::devicex::warn("enablePipelining: the stages run one after the other: {}", why);
    }
  }
  // One program instance: weights that kernels keep only in their own layout need no plain device copy.
  if (R == 1 && pipelines_.empty() && comm_->globalReplicas() == 1) {
    const int64_t freed = replicas_.front()->dropPlainCopies();
    if (freed) logging::devicex::info("{} bytes of weights kept only in the kernels' layouts", freed);
  }
  prepared_ = true;
  logging::devicex::info("{} local replica(s), {} thread(s) each{}{}", R, threadsPerReplica(),
                         sequential_ ? ", run one after the other (host IO in the program)" : "",
                         shared_ && !shared_->tensors.empty()
                             ? ", sharing " + std::to_string(shared_->tensors.size()) +
                                   " weight and optimizer state tensor(s), each replica updating a slice"
                             : "");
}

bool Executor::pipelineApplies(std::string &why) const {
  std::set<int64_t> stages;
  for (const auto &s : replicas_.front()->segments()) stages.insert(s.stage);
  if (stages.size() < 2) return why = "fewer than two pipeline stages (pipelineStage / virtualGraph annotations)", false;
  // Collectives may run only between accumulation cycles (the gradient reduction), when no stage is busy.
  const Op *collective = findOp(ir_, [](const Op &op) {
    return isCollective(op) && op.settings.executionContext != ExecutionContext::AccumulateOuterFragment;
  });
  if (sequential_ || collective ||
      findOp(ir_, isHostIO))
    return why = "the program has collectives or host IO ops", false;
  if (ir_.isTraining() && ir_.getSessionOptions().getAccumulationFactor() < 2)
    return why = "training without gradient accumulation updates the weights after every micro-batch", false;
  return true;
}

void Executor::shareWeights() {
  auto *pc = dynamic_cast<ProcessCommunicator *>(comm_.get());
  const bool local = dynamic_cast<LocalCommunicator *>(comm_.get()) != nullptr;
  // Replicas at once (no host IO read in turn); between processes only without pipelines (their own hand-offs).
  if (sequential_ || replicaIO_ || !(local || pc) || (pc && ir_.getSessionOptions().enablePipelining)) return;
  const char *env = std::getenv("POPART_SHARED_WEIGHTS");  // "0": every replica its own copy (for comparisons)
  if (env && std::string(env) == "0") return;
  auto plan = std::make_unique<SharedUpdates>(planSharedUpdates(ir_, comm_->globalReplicas()));
  if (plan->tensors.empty()) return;
  // The same layout in every process, by tensor id: the shared tensors, then
  // one entry per global replica holding its gradients that the others read in
  // place (not with pipelines: their instances each have their own gradients).
  std::vector<const Tensor *> tensors(plan->tensors.begin(), plan->tensors.end());
  std::sort(tensors.begin(), tensors.end(), [](const Tensor *a, const Tensor *b) { return a->id < b->id; });
  std::vector<const Tensor *> grads;
  if (!ir_.getSessionOptions().enablePipelining) grads = inPlaceGradients(*plan, ir_);
  auto place = [](const std::vector<const Tensor *> &ts, std::vector<int64_t> &offsets) {
    int64_t bytes = 0;
    for (const Tensor *t : ts) {
      offsets.push_back(bytes);
      bytes += (t->info.nbytes() + 63) / 64 * 64;
    }
    return bytes;
  };
  std::vector<int64_t> offsets, gradOffsets;
  const int64_t weightBytes = place(tensors, offsets), gradBytes = place(grads, gradOffsets);
  const int64_t G = comm_->globalReplicas(), bytes = weightBytes + G * gradBytes;
  if (pc) {
    sharedMemory_ = pc->sharedMemory(bytes, "placing the shared weights");
    if (!sharedMemory_) return;  // processes on several hosts: each holds its own copy
    hostShared_ = pc;
  } else {
    char *p = static_cast<char *>(std::aligned_alloc(64, static_cast<size_t>(bytes)));
    if (!p) throw memory_allocation_err("cannot allocate {} bytes for the replicas' shared weights", bytes);
    std::memset(p, 0, static_cast<size_t>(bytes));
    sharedMemory_ = std::shared_ptr<char>(p, [](char *q) { std::free(q); });
  }
  for (size_t k = 0; k < tensors.size(); ++k) sharedBuffers_[tensors[k]] = sharedMemory_.get() + offsets[k];
  for (size_t k = 0; k < grads.size(); ++k)
    for (int64_t g = 0; g < G; ++g)
      peers_[grads[k]].push_back(sharedMemory_.get() + weightBytes + g * gradBytes + gradOffsets[k]);
  for (const Op *op : plan->ops)
    updatesInOuter_ = updatesInOuter_ || (op->opid.type == "OptimizerVarUpdate" &&
                                          op->settings.executionContext == ExecutionContext::AccumulateOuterFragment);
  shared_ = std::move(plan);
  for (int64_t r = 0; r < localReplicas(); ++r)  // global replica 0 writes them from the host
    replicas_[static_cast<size_t>(r)]->shareUpdates(shared_.get(), &sharedBuffers_, &peers_,
                                                    comm_->globalOffset() + r == 0);
}

void Executor::hostBarrier(const char *what) const {
  if (hostShared_) hostShared_->barrier(what);
}

int64_t Executor::gradientsFromAllReplicas() const {
  return shared_ ? static_cast<int64_t>(shared_->products.size() + shared_->accumulations.size()) : 0;
}

std::pair<int64_t, int64_t> Executor::sharedTensors() const {
  int64_t bytes = 0;
  if (shared_)
    for (const Tensor *t : shared_->tensors) bytes += t->info.nbytes();
  return {shared_ ? static_cast<int64_t>(shared_->tensors.size()) : 0, bytes};
}

std::string Executor::pipelineSummary() const {
  if (pipelines_.empty()) return "";
  const PipelineRunner &p = *pipelines_.front();
  std::string s = "pipeline: " + std::to_string(p.stages()) + " stage(s) on " + std::to_string(p.threadsPerStage()) +
                  " thread(s) each, " + std::to_string(p.inFlight()) + " micro-batch(es) in flight" +
                  (pipelines_.size() > 1 ? " per replica, " + std::to_string(pipelines_.size()) + " replicas at once"
                                         : std::string()) +
                  "; segments:";
  for (const auto &seg : replicas_.front()->segments())
    s += " [stage " + std::to_string(seg.stage) + ": " + std::to_string(seg.ops) + " ops]";
  if (p.runNs() > 0) {  // balance: how much of the pipelined runs' time each stage worked (the first replica's)
    s += "; busy";
    for (size_t k = 0; k < static_cast<size_t>(p.stages()); ++k) {
      char part[64];
      std::snprintf(part, sizeof(part), "%s stage %zu %.1f%%", k ? "," : "", k, 100.0 * p.stageBusyNs(k) / p.runNs());
      s += part;
    }
    char part[64];
    std::snprintf(part, sizeof(part), " of %.3f ms", p.runNs() / 1e6);
    s += part;
  }
  return s;
}

void Executor::runPipelined(IStepIO &io) {
  const auto &opts = ir_.getSessionOptions();
  const int64_t bps = ir_.getDataFlow().batchesPerStep(), accum = opts.getAccumulationFactor();
  const int64_t R = localReplicas(), G = comm_->globalReplicas(), offset = comm_->globalOffset();
  const uint64_t base = ir_.randomState().counter;
  auto mbOf = [&](int64_t b, int64_t a, int64_t r) {
    return Devicex::MicroBatch{b, r, b == 0 && a == 0, b == bps - 1 && a == accum - 1};
  };
  // As runSteps: micro-batch m of replica r draws with counter base + m G + offset + r.
  auto counter = [&](int64_t m, int64_t r) { return base + static_cast<uint64_t>(m * G + offset + r); };
  // Replica r's micro-batches m = 0 .. count-1, (b0 + m / accum, m % accum), through its pipeline.
  auto runReplica = [&](int64_t r, IStepIO &rio, int64_t b0, int64_t count) {
    Devicex &main = *replicas_[static_cast<size_t>(r)];
    pipelines_[static_cast<size_t>(r)]->run(
        count,
        [&](int64_t m, Devicex &d) {
          const int64_t b = b0 + m / accum, a = m % accum;
          d.beginMicroBatch(rio, mbOf(b, a, r), counter(b * accum + a, r));
          d.readInputs();
        },
        [&](int64_t m, Devicex &d) { main.writeAnchorsFrom(d, rio, mbOf(b0 + m / accum, m % accum, r)); });
  };
  // Several replicas: each pipeline reads its inputs staged beforehand and
  // records its anchors, in the [micro-batch, replica] order of the step's data.
  auto runBatches = [&](int64_t b0, int64_t count) {
    if (R == 1) return runReplica(0, io, b0, count);
    replicaIO_->clear();
    if (opts.syntheticDataMode == SyntheticDataMode::Off)
      for (int64_t m = 0; m < count; ++m)
        for (int64_t r = 0; r < R; ++r)
          for (const Tensor *t : ir_.getMainGraph().getTensors().getOfType(TensorType::Stream))
            replicaIO_->stageInput(io, r, t->id, t->info.nelms());
    forReplicas([&](int64_t r) { runReplica(r, replicaIO_->replicaIO(r), b0, count); });
    replicaIO_->writeAnchors(io);
  };
  if (!ir_.isTraining()) {
    runBatches(0, bps * accum);
  } else {
    for (int64_t b = 0; b < bps; ++b) {
      runBatches(b, accum);
      if (replicas_.front()->hasOuter())  // (processes with pipelines share no weights: no barrier)
        forReplicas([&](int64_t r) { replicas_[static_cast<size_t>(r)]->runOuter(counter((b + 1) * accum, 0)); });
    }
  }
  ir_.randomState().counter = base + static_cast<uint64_t>(bps * accum * G);
}

void Executor::forReplicas(const std::function<void(int64_t)> &task) {
  if (!threads_) {
    task(0);
  } else if (sequential_) {
    threads_->runEach(task);
  } else {
    threads_->runAll([&](int64_t r) { namingReplica(comm_->globalOffset() + r, [&] { task(r); }); },
                     [this](int64_t r, const std::string &what) {
                       comm_->abort("replica " + std::to_string(comm_->globalOffset() + r) + " failed: " + what);
                     });
  }
}

void Executor::weightsFromHost() {
  const auto G = static_cast<unsigned>(comm_->globalReplicas());
  for (int64_t r = 0; r < localReplicas(); ++r) {
    Devicex &d = *replicas_[static_cast<size_t>(r)];
    d.weightsFromHost();
    for (const auto &[t, vs] : grouped_) {
      const auto nbytes = static_cast<size_t>(t->info.nbytes());
      const auto slots = static_cast<unsigned>(t->tensorData().size() / std::max<size_t>(nbytes, 1));
      const unsigned slot = hostSlotOfReplica(vs, G, slots, static_cast<unsigned>(comm_->globalOffset() + r));
      std::memcpy(d.view(t).raw(), t->tensorData().data() + slot * nbytes, nbytes);
    }
  }
  hostBarrier("writing the weights from the host");  // global replica 0's process wrote the shared ones
}

std::vector<std::vector<char>> Executor::groupedValues() {
  const auto G = static_cast<size_t>(comm_->globalReplicas());
  const auto L = static_cast<size_t>(localReplicas());
  // Per local replica, its values of every grouped Variable one after the other.
  size_t block = 0;
  for (const auto &[t, vs] : grouped_) block += static_cast<size_t>(t->info.nbytes());
  std::vector<char> mine(block * L), all(block * G);
  for (size_t r = 0; r < L; ++r) {
    size_t at = r * block;
    for (const auto &[t, vs] : grouped_) {
      std::memcpy(mine.data() + at, replicas_[r]->view(t).raw(), static_cast<size_t>(t->info.nbytes()));
      at += static_cast<size_t>(t->info.nbytes());
    }
  }
  if (auto *pc = dynamic_cast<ProcessCommunicator *>(comm_.get())) {  // the other processes' replicas too
    std::vector<const char *> local;
    for (size_t r = 0; r < L; ++r) local.push_back(mine.data() + r * block);
    pc->gatherReplicas(local, static_cast<int64_t>(block), all.data());
  } else {
    all = std::move(mine);
  }
  std::vector<std::vector<char>> values;
  size_t at = 0;
  for (const auto &[t, vs] : grouped_) {
    const auto nbytes = static_cast<size_t>(t->info.nbytes());
    values.emplace_back(nbytes * G);
    for (size_t g = 0; g < G; ++g) std::memcpy(values.back().data() + g * nbytes, all.data() + g * block + at, nbytes);
    at += nbytes;
  }
  return values;
}

void Executor::weightsToHost() {
  replicas_.front()->weightsToHost();
  if (grouped_.empty()) return;
  const auto G = static_cast<unsigned>(comm_->globalReplicas());
  const auto values = groupedValues();
  for (size_t i = 0; i < grouped_.size(); ++i) {
    auto &[t, vs] = grouped_[i];
    const auto nbytes = static_cast<size_t>(t->info.nbytes());
    if (vs.getRetrievalMode() == VariableRetrievalMode::AllReplicas) {  // one value per replica
      t->setTensorData(values[i]);
      continue;
    }
    const ReplicaGrouping rg = vs.getReplicaGrouping(G);
    std::vector<char> perGroup(nbytes * rg.getNumGroups());
    for (unsigned g = 0; g < rg.getNumGroups(); ++g)
      std::memcpy(perGroup.data() + g * nbytes, values[i].data() + rg.getReplicaAt(g, 0) * nbytes, nbytes);
    t->setTensorData(std::move(perGroup));
  }
}

void Executor::writeTensorToDevice(const Tensor *t) {
  for (auto &d : replicas_) d->writeTensorToDevice(t);
}

void Executor::addTensorCallback(const Tensor *t, std::function<void(void *)> fn, int64_t replica) {
  replica -= comm_->globalOffset();
  if (replica < 0 || replica >= localReplicas())
    throw error("tensor callback for '{}': replica {} does not run in this process (its replicas are {} .. {})",
                t->id, replica + comm_->globalOffset(), comm_->globalOffset(),
                comm_->globalOffset() + localReplicas() - 1);
  replicas_[static_cast<size_t>(replica)]->addTensorCallback(t, std::move(fn), replica);
}

void Executor::broadcastWeights(int64_t root) {
  if (!prepared_) throw error("broadcastWeights() needs prepareDevice() first");
  if (root < 0 || root >= comm_->globalReplicas())
    throw error("broadcastWeights: root replica {} is out of range (there are {} replicas)", root,
                comm_->globalReplicas());
  if (comm_->globalReplicas() == 1) return;  // one replica holds them already
  std::vector<const Tensor *> weights;
  for (Graph *g : ir_.getAllGraphs())
    for (Tensor *t : g->getTensors().getOfType(TensorType::Variable)) weights.push_back(t);
  std::sort(weights.begin(), weights.end(), [](const Tensor *a, const Tensor *b) { return a->id < b->id; });
  // A Variable with one value per group is broadcast within each group, from the
  // member at root's place in its group.
  const auto G = static_cast<unsigned>(comm_->globalReplicas());
  std::vector<std::pair<CommGroup, int64_t>> from(weights.size(), {CommGroup(), root});
  for (size_t i = 0; i < weights.size(); ++i)
    for (const auto &[t, vs] : grouped_)
      if (t == weights[i])
        from[i] = {vs.toCommGroup(G, t->id), vs.getReplicaGrouping(G).getIndexInGroupAt(static_cast<unsigned>(root))};
  comm_->reset();
  forReplicas([&](int64_t r) {
    Devicex &d = *replicas_[static_cast<size_t>(r)];
    for (size_t i = 0; i < weights.size(); ++i) {
      TensorView v = d.view(weights[i]);
      comm_->broadcast(r, from[i].first, from[i].second, v.raw(), v.nbytes());
    }
  });
  for (auto &d : replicas_) d->markHostWrite();
}

void Executor::broadcastWeightsOverProcesses(ProcessGroup &group, int64_t rootRank) {
  if (!prepared_) throw error("broadcast_weights needs prepareDevice() first");
  if (rootRank < 0 || rootRank >= group.size())
    throw error("broadcast_weights: root rank {} is out of range (there are {} processes)", rootRank, group.size());
  std::vector<Tensor *> weights;
  for (Graph *g : ir_.getAllGraphs())
    for (Tensor *t : g->getTensors().getOfType(TensorType::Variable))
      if (t->hasTensorData()) weights.push_back(t);
  std::sort(weights.begin(), weights.end(), [](const Tensor *a, const Tensor *b) { return a->id < b->id; });
  weightsToHost();
  std::vector<char> mine;
  for (const Tensor *t : weights) mine.insert(mine.end(), t->tensorData().begin(), t->tensorData().end());
  std::vector<char> all(mine.size() * static_cast<size_t>(group.size()));
  group.allGather(mine.data(), static_cast<int64_t>(mine.size()), all.data());
  const char *root = all.data() + mine.size() * static_cast<size_t>(rootRank);
  for (Tensor *t : weights) {  // grouped Variables hold a value per group (the same layout on every process)
    const auto nbytes = static_cast<int64_t>(t->tensorData().size());
    t->setTensorData(root, nbytes);
    root += nbytes;
  }
  weightsFromHost();
}

// Data is laid out [batchesPerStep, accumulationFactor, replicas, ...]: for
// each micro-batch the host streams are read in replica order, the replicas
// run concurrently, and the anchors are written in replica order. Micro-batch
// (b, a) of replica r draws random numbers with counter base + (b A + a) R + r,
// as if the replicas ran one after the other.
void Executor::runSteps(IStepIO &io, int64_t bps, int64_t accum) {
  const int64_t R = localReplicas();
  const int64_t G = comm_->globalReplicas(), offset = comm_->globalOffset();
  const uint64_t base = ir_.randomState().counter;
  auto counter = [&](int64_t b, int64_t a, int64_t r) {
    return base + static_cast<uint64_t>((b * accum + a) * G + offset + r);
  };
  if (replicaIO_ && ir_.isExplicitProgram()) return runWithReplicaHostIO(io, counter(0, 0, 0));
  for (int64_t b = 0; b < bps; ++b) {
    for (int64_t a = 0; a < accum; ++a) {
      if (replicaIO_) {
        runMicroBatchWithHostIO(io, {b, 0, b == 0 && a == 0, b == bps - 1 && a == accum - 1}, counter(b, a, 0));
        continue;
      }
      for (int64_t r = 0; r < R; ++r) {
        Devicex &d = *replicas_[static_cast<size_t>(r)];
        d.beginMicroBatch(io, {b, r, b == 0 && a == 0, b == bps - 1 && a == accum - 1}, counter(b, a, r));
        if (!sequential_) d.readInputs();
      }
      forReplicas([&](int64_t r) {
        Devicex &d = *replicas_[static_cast<size_t>(r)];
        if (sequential_) d.readInputs();
        d.runMain();
        if (sequential_) d.writeAnchors();
      });
      if (!updatesInOuter_) hostBarrier("the weight update");
      if (!sequential_)
        for (auto &d : replicas_) d->writeAnchors();
    }
    if (replicas_.front()->hasOuter()) {
      forReplicas([&](int64_t r) { replicas_[static_cast<size_t>(r)]->runOuter(counter(b + 1, 0, 0)); });
      if (updatesInOuter_) hostBarrier("the weight update");
      if (replicaIO_) replicaIO_->writeAnchors(io);  // what HostStore ops of the outer program stored
    }
  }
  ir_.randomState().counter = base + static_cast<uint64_t>(bps * accum * G);
}

// Every replica runs `mb` (its replica field aside) at once through its view
// of the step IO; RNG counter `counter` + r for replica r.
void Executor::runReplicasOnViews(IStepIO &io, const Devicex::MicroBatch &mb, uint64_t counter) {
  for (int64_t r = 0; r < localReplicas(); ++r)
    replicas_[static_cast<size_t>(r)]->beginMicroBatch(replicaIO_->replicaIO(r), {mb.batch, r, mb.first, mb.last},
                                                       counter + static_cast<uint64_t>(r));
  forReplicas([&](int64_t r) {
    Devicex &d = *replicas_[static_cast<size_t>(r)];
    d.readInputs();
    d.runMain();
    d.writeAnchors();
  });
  replicaIO_->writeAnchors(io);
}

// A program with host IO ops that is not explicit (SessionOptions::useHostCopyOps):
// micro-batch mb's reads of every replica are staged in replica order, as
// replicas running one after the other would read them.
void Executor::runMicroBatchWithHostIO(IStepIO &io, const Devicex::MicroBatch &mb, uint64_t counter) {
  replicaIO_->clear();
  for (int64_t r = 0; r < localReplicas(); ++r)
    for (const auto &[id, read] : hostReads_)
      for (int64_t i = 0; i < read.second; ++i) replicaIO_->stageInput(io, r, id, read.first);
  runReplicasOnViews(io, mb, counter);
}

// An explicit program with host IO ops: one run reads batchesPerStep values of
// each stream per replica, laid out [batchesPerStep, replicas, ...].
void Executor::runWithReplicaHostIO(IStepIO &io, uint64_t counter) {
  const int64_t R = localReplicas();
  replicaIO_->clear();
  for (const auto &[id, read] : hostReads_)
    for (int64_t k = 0; k < read.second * R; ++k) replicaIO_->stageInput(io, k % R, id, read.first);
  runReplicasOnViews(io, {0, 0, true, true}, counter);
  ir_.randomState().counter = counter - static_cast<uint64_t>(comm_->globalOffset()) +
                              static_cast<uint64_t>(comm_->globalReplicas());
}

void Executor::run(IStepIO &io) {
  if (!prepared_) throw error("run() called before prepareDevice()");
  auto t0 = std::chrono::steady_clock::now();
  const int64_t c0 = readTicks();
  comm_->reset();
  hostBarrier("the start of a run");  // no process still reads or writes the shared weights from the host
  struct EndRun {
    std::vector<std::unique_ptr<Devicex>> &replicas, &instances;
    ~EndRun() {
      for (auto &d : replicas) d->endRun();
      for (auto &d : instances) d->endRun();
    }
  } endRun{replicas_, pipelineInstances_};
  // IRs built op by op with SessionOptions::enableExplicitMainLoops (PopXL's)
  // hold their loops and host IO themselves: one run() runs the main graph
  // once, its HostLoad/HostStore ops reading and writing successive slices of
  // the step IO. An imported ONNX model keeps the step loop, as PopART's
  // main-loops transform would build it.
  if (ir_.isExplicitProgram()) runSteps(io, 1, 1);
  else if (!pipelines_.empty()) runPipelined(io);
  else runSteps(io, ir_.getDataFlow().batchesPerStep(), ir_.getSessionOptions().getAccumulationFactor());
  lastRunTicks_ = readTicks() - c0;
  lastRunNs_ = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count();
}

std::vector<OpStats> Executor::opStats() const {
  std::vector<OpStats> sum = replicas_.front()->opStats();
  std::vector<const Devicex *> others;
  for (size_t r = 1; r < replicas_.size(); ++r) others.push_back(replicas_[r].get());
  for (const auto &d : pipelineInstances_) others.push_back(d.get());
  for (const Devicex *d : others) {
    const auto &s = d->opStats();
    for (size_t i = 0; i < sum.size() && i < s.size(); ++i) {
      sum[i].calls += s[i].calls;
      sum[i].time += s[i].time;
    }
  }
  return sum;
}

void Executor::resetStats() {
  for (auto &d : replicas_) d->resetStats();
  for (auto &d : pipelineInstances_) d->resetStats();
  for (auto &p : pipelines_) p->resetStats();
}

} // namespace popart::popx
