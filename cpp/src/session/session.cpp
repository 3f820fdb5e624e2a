// Session: model parsing, IR preparation, device programs and the run API.
#include "popart/session.hpp"
#include "cpu/executor.hpp"
#include "onnx/atomic_file.hpp"
#include "onnx/import.hpp"
#include "ops/host_io.hpp"
#include "onnx/model.hpp"
#include "popart/builder.hpp"
#include "popart/dataflow.hpp"
#include "popart/replicagrouping.hpp"
#include "popart/devicemanager.hpp"
#include "popart/error.hpp"
#include "popart/graph.hpp"
#include "popart/inputshapeinfo.hpp"
#include "popart/ir.hpp"
#include "popart/logging.hpp"
#include "popart/optimizer.hpp"
#include "transforms/autodiff.hpp"
#include "transforms/pipeline.hpp"
#include "popart/patterns.hpp"
#include "popart/sessionoptions.hpp"
#include "popart/stepio.hpp"
#include "popart/tensor.hpp"
#include "popart/variablesettings.hpp"
#include <cstdio>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <algorithm>
#include <cstring>
#include <fstream>
#include <sstream>

namespace popart {
namespace {

onnxpb::Model readModel(const std::string &modelProtoOrFilename) {
  return onnxpb::readModelOrFile(modelProtoOrFilename);
}

} // namespace

Session::Session(std::shared_ptr<DeviceInfo> device, const std::string &name)
    : ir_(std::make_unique<Ir>()), device_(std::move(device)), name_(name) {
  if (!device_) throw error("a session needs a device: pass deviceInfo (e.g. DeviceManager().createCpuDevice())");
}

Session::~Session() = default;

namespace {

// The VariableSettings of the model's weights must fit the replicas (global
// ones with enableDistributedReplicatedGraphs): their groups tile them.
// AllReduceReplicas retrieval is not supported (PopART does not support it either).
void checkVariableSettings(const onnxpb::Model &m, const SessionOptions &o) {
  const std::string prefix = sVariableSettingsMetadataPrefix;
  const auto replicas = static_cast<unsigned>(o.getGlobalReplicationFactor());
  for (const auto &p : m.metadataProps) {
    if (p.key.rfind(prefix, 0) != 0) continue;
    const TensorId id = p.key.substr(prefix.size());
    const VariableSettings vs = variableSettingsFromMetadata(p.value, id);
    if (vs.getRetrievalMode() == VariableRetrievalMode::AllReduceReplicas)
      throw error("variable '{}': VariableRetrievalMode.AllReduceReplicas is not supported; use OnePerGroup or "
                  "AllReplicas", id);
    try {
      vs.getReplicaGrouping(replicas);
    } catch (const error &e) {
      throw error("variable '{}': its {} does not fit the session's {} replicas: {}", id, vs.str(), replicas,
                  e.what());
    }
  }
}

} // namespace

void Session::ctorCommonLogic(const std::string &model, const DataFlow &dataFlow, const InputShapeInfo &shapes,
                              const SessionOptions &options, const Patterns &patterns, const TensorId &loss,
                              const Optimizer *optimizer) {
  onnxpb::Model m = readModel(model);
  checkVariableSettings(m, options);
  IrBundle b;
  b.model = &m;
  b.dataFlow = &dataFlow;
  b.inputShapeInfo = &shapes;
  b.userOptions = &options;
  b.patterns = &patterns;
  b.loss = loss;
  b.optimizer = optimizer;
  b.sessionName = name_;
  ir_->prepare(b);
  if (optimizer) refuseOptimizingConstants(*optimizer);
  devicex_ = std::make_unique<popx::Executor>(*ir_);
}

void Session::ctorFromIr(std::shared_ptr<Ir> ir) {
  if (!ir) throw error("session '{}': createFromIr needs an IR (got null)", name_);
  ir_ = std::move(ir);
  if (!ir_->isPrepared()) runIrPipeline(*ir_);
  if (const Optimizer *optimizer = ir_->getOptimizer()) refuseOptimizingConstants(*optimizer);
  devicex_ = std::make_unique<popx::Executor>(*ir_);
}

popx::Executor &Session::getExecutor() const { return *devicex_; }

void Session::broadcastWeights(int rootRank) {
  if (!isPrepared()) throw error("broadcastWeights() needs prepareDevice() first");
  std::lock_guard<std::mutex> lock(runMutex_);
  devicex_->broadcastWeights(static_cast<int64_t>(rootRank) * devicex_->localReplicas());
  hostWeightsInSync_ = false;
}
bool Session::isPrepared() const { return devicex_ && devicex_->isPrepared(); }

// Elements one run() reads per input stream and writes per anchor (fixed once prepared).
void Session::countStepElements() {
  const DataFlow &df = ir_->getDataFlow();
  const auto &opts = ir_->getSessionOptions();
  const int64_t accum = opts.getAccumulationFactor(), replicas = opts.replicationFactor();
  const int64_t perStep = df.batchesPerStep() * accum * replicas;
  if (opts.syntheticDataMode == SyntheticDataMode::Off) {  // else inputs are made on the device
    for (Tensor *t : ir_->getMainGraph().getTensors().getOfType(TensorType::Stream))
      stepElements_.inputs[t->id] = perStep * t->info.nelms();
    for (const Graph *g : ir_->getAllGraphs())
      for (const auto &[id, op] : g->getOps())
        if (auto *load = dynamic_cast<const HostLoadOp *>(op.get()))
          stepElements_.inputs[load->streamId()] = perStep * load->outInfo(0).nelms();
  }
  for (const auto &id : df.anchors()) {
    const HostStoreOp *store = findHostStore(*ir_, id);
    const TensorInfo &info = store ? store->inInfo(0) : ir_->getTensor(id)->info;
    stepElements_.anchors[id] = df.numReturned(id, accum) * replicas * info.nelms();
  }
}

void Session::prepareDevice(bool loadEngine) {
  if (devicex_->isPrepared()) throw error("prepareDevice() was already called on session '{}'", name_);
#ifdef __GLIBC__
  // Building the IR freed the model's bytes and the parse's temporaries in the middle of the heap,
  // where glibc keeps them resident: give those pages back before the device allocates.
  malloc_trim(0);
#endif
  devicex_->setVirtualGraphs(device_->getNumIpus());
  devicex_->prepare();
  countStepElements();
  // An offline device compiles only; run() and loadEngineAndConnectStreams() refuse.
  if (loadEngine && device_->getType() != DeviceType::OfflineIpu) loadEngineAndConnectStreams();
}

void Session::loadEngineAndConnectStreams() {
  if (!devicex_->isPrepared()) throw error("loadEngineAndConnectStreams() needs prepareDevice() first");
  if (device_->getType() == DeviceType::OfflineIpu)
    throw error("the session was compiled for an offline IPU device, which cannot run programs; "
                "use a Cpu, IpuModel or acquired device to run");
  device_->attach();
  if (!weightsOnDevice_) weightsFromHost();
  engineLoaded_ = true;
}

void Session::weightsFromHost() {
  if (!isPrepared()) throw error("weightsFromHost() needs prepareDevice() first");
  devicex_->weightsFromHost();
  weightsOnDevice_ = true;
  hostWeightsInSync_ = true;
}

void Session::weightsToHost() {
  if (!isPrepared()) throw error("weightsToHost() needs prepareDevice() first");
  devicex_->weightsToHost();
  hostWeightsInSync_ = true;
}

void Session::copyDeviceWeightsToHost() {
  if (!hostWeightsInSync_) weightsToHost();
}

namespace {

void checkWeightType(const Tensor &t, const MutableVoidData &d) {
  if (!hostHolds(d.info.dataType(), t.info.dataType()))
    throw error("weight buffer for '{}' has type {}, expected {}", t.id, d.info.data_type(), t.info.data_type());
}

void checkWeightBuffer(const Tensor &t, const MutableVoidData &d) {
  checkWeightType(t, d);
  if (d.info.nelms() != t.info.nelms())
    throw error("weight buffer for '{}' has {} elements, expected {} ({})", t.id, d.info.nelms(), t.info.nelms(),
                t.info.toString());
}

// The shape of `copies` values of t, one after the other.
Shape copiesShape(const Tensor &t, unsigned copies) {
  Shape s = t.info.shape();
  if (copies > 1) s.insert(s.begin(), static_cast<int64_t>(copies));
  return s;
}

unsigned globalReplicas(const Ir &ir) {
  return static_cast<unsigned>(ir.getSessionOptions().getGlobalReplicationFactor());
}

// Slots (copies of the replica-shaped value) in t's host data.
unsigned hostSlots(const Tensor &t) {
  return static_cast<unsigned>(t.tensorData().size() / std::max<size_t>(static_cast<size_t>(t.info.nbytes()), 1));
}

// A Variable with VariableSettings returns numReplicasReturningVariable values:
// one per group (each group's representative) or one per replica (AllReplicas).
void readGroupedWeight(const Tensor &t, const VariableSettings &vs, unsigned replicas, const MutableVoidData &d) {
  checkWeightType(t, d);
  const unsigned n = vs.numReplicasReturningVariable(replicas);
  if (d.info.nelms() != static_cast<int64_t>(n) * t.info.nelms())
    throw error("weight buffer for '{}' has {} elements, expected {} ({} value(s) of {} for its {} over {} "
                "replicas)", t.id, d.info.nelms(), copiesShape(t, n), n, t.info.toString(), vs.str(), replicas);
  const auto nbytes = static_cast<size_t>(t.info.nbytes());
  const ReplicaGrouping rg = vs.getReplicaGrouping(replicas);
  const bool perReplica = vs.getRetrievalMode() == VariableRetrievalMode::AllReplicas;
  for (unsigned i = 0; i < n && nbytes > 0; ++i) {  // empty: data() may be null
    const unsigned replica = perReplica ? i : rg.getReplicaAt(i, 0);
    const unsigned slot = hostSlotOfReplica(vs, replicas, hostSlots(t), replica);
    std::memcpy(static_cast<char *>(d.data) + i * nbytes, t.tensorData().data() + slot * nbytes, nbytes);
  }
}

// Accepts one value per group, or (AllReplicas) one per replica.
void writeGroupedWeight(Tensor &t, const VariableSettings &vs, unsigned replicas, const MutableVoidData &d) {
  checkWeightType(t, d);
  const unsigned groups = vs.getGroupCount(replicas);
  const bool perReplica = vs.getRetrievalMode() == VariableRetrievalMode::AllReplicas;
  const int64_t copies = d.info.nelms() / std::max<int64_t>(t.info.nelms(), 1);
  if (d.info.nelms() % std::max<int64_t>(t.info.nelms(), 1) != 0 ||
      !(copies == groups || (perReplica && copies == replicas)))
    throw error("weight buffer for '{}' has {} elements, expected {}{} (its {} over {} replicas)", t.id,
                d.info.nelms(), copiesShape(t, groups),
                perReplica ? " or " + std::to_string(replicas) + " values, one per replica" : std::string(),
                vs.str(), replicas);
  t.setTensorData(d.data, copies * t.info.nbytes());
}

} // namespace

void Session::readWeights(const IWeightsIO &w) {
  const auto grouped = nonDefaultVariableSettings(*ir_);
  for (Tensor *t : ir_->getMainGraph().getTensors().getOfType(TensorType::Variable)) {
    if (!w.contains(t->id)) continue;
    MutableVoidData d = w.weight(t->id);
    auto vs = grouped.find(t->id);
    if (vs != grouped.end()) {
      readGroupedWeight(*t, vs->second, globalReplicas(*ir_), d);
      continue;
    }
    checkWeightBuffer(*t, d);
    if (t->info.nbytes() > 0) std::memcpy(d.data, t->tensorData().data(), static_cast<size_t>(t->info.nbytes()));
  }
}

// Initializers read as compile-time operands (a Dropout ratio, Clip bounds, a
// Reshape shape) are constants of the compiled program, not weights: naming one
// where a weight is expected (`what`: writeWeights, an optimizer) is refused.
void Session::refuseConstantOperands(const std::function<bool(const TensorId &)> &names,
                                     const std::string &what) const {
  const onnxpb::Model *m = ir_->getModel();
  if (!m) return;
  for (const auto &init : m->graph.initializer) {
    const auto &tensors = ir_->getMainGraph().getTensors();
    const Tensor *t = tensors.contains(init.name) ? tensors.get(init.name) : nullptr;
    if (t && t->tensorType() == TensorType::Const && names(init.name))
      throw error("{}: '{}' is not a weight but a constant the model reads at compile time (an operand "
                  "such as a Dropout ratio, Clip bound or Reshape shape)", what, init.name);
  }
}

void Session::refuseOptimizingConstants(const Optimizer &optimizer) const {
  std::set<TensorId> named;
  for (const auto &[name, map] : optimizer.valueMaps())
    for (const auto &[id, value] : map->getSpecifics()) named.insert(id);
  for (const auto &group : optimizer.getClipNormSettings()) named.insert(group.weightIds.begin(), group.weightIds.end());
  refuseConstantOperands([&](const TensorId &id) { return named.count(id) != 0; },
                         "optimizer (a weight-specific value or clip-norm group)");
}

void Session::writeWeights(const IWeightsIO &w) {
  refuseConstantOperands([&](const TensorId &id) { return w.contains(id); }, "writeWeights");
  const auto grouped = nonDefaultVariableSettings(*ir_);
  for (Tensor *t : ir_->getMainGraph().getTensors().getOfType(TensorType::Variable)) {
    if (!w.contains(t->id)) continue;
    MutableVoidData d = w.weight(t->id);
    auto vs = grouped.find(t->id);
    if (vs != grouped.end()) {
      writeGroupedWeight(*t, vs->second, globalReplicas(*ir_), d);
      hostWeightsInSync_ = false;
      continue;
    }
    checkWeightBuffer(*t, d);
    if (t->info.nbytes() > 0) std::memcpy(t->tensorData().data(), d.data, static_cast<size_t>(t->info.nbytes()));
    hostWeightsInSync_ = false;
  }
}

// Data for an id that is no input of the model is a typo or a wrong model: say
// which inputs the model has (inputs the compiler pruned are only warned about).
void Session::checkStepInputIds(const StepIOGeneric &io) const {
  const auto ids = io.inputIds();
  if (std::all_of(ids.begin(), ids.end(), [&](const TensorId &id) { return stepElements_.inputs.count(id) != 0; }))
    return;  // the common case, checked without building the model's input list
  const onnxpb::Model *m = ir_->getModel();
  std::set<TensorId> modelInputs;
  if (m)
    for (const auto &vi : m->graph.input) modelInputs.insert(vi.name);
  for (const auto &t : ir_->getMainGraph().getTensors().getOfType(TensorType::Stream)) modelInputs.insert(t->id);
  if (m)
    for (const auto &init : m->graph.initializer) modelInputs.erase(init.name);
  for (const auto &id : ids) {
    if (stepElements_.inputs.count(id) || modelInputs.count(id)) continue;
    std::vector<TensorId> names(modelInputs.begin(), modelInputs.end());
    throw error("the step IO has data for '{}', which is no input of the model (its inputs: {})", id, names);
  }
}

void Session::run(IStepIO &io, const std::string &debugName) { run("", io, debugName); }

void Session::run(const std::string &handle, IStepIO &io, const std::string &debugName) {
  if (!isPrepared()) throw error("run() called on session '{}' before prepareDevice()", name_);
  if (device_->getType() == DeviceType::OfflineIpu)
    throw error("the session was compiled for an offline IPU device, which cannot run programs");
  if (!handle.empty() && handle != "main")
    throw error("unknown program handle '{}' (this session has the main program only)", handle);
  if (!device_->isAttached())
    throw error("run() called on session '{}' after its device was detached; attach it again first", name_);
  std::lock_guard<std::mutex> lock(runMutex_);
  if (!engineLoaded_) loadEngineAndConnectStreams();
  if (const auto *generic = dynamic_cast<const StepIOGeneric *>(&io)) checkStepInputIds(*generic);
  io.beginStep(stepElements_.inputs, stepElements_.anchors);
  logging::session::debug("run '{}'", debugName);
  devicex_->run(io);
  if (ir_->isTraining()) hostWeightsInSync_ = false;
}

std::set<TensorId> Session::getAllTensorIds() const {
  std::set<TensorId> ids;
  for (Graph *g : ir_->getAllGraphs())
    for (const auto &id : g->getTensors().getAllTensorIds()) ids.insert(id);
  return ids;
}

void Session::connectStreamToCallback(const TensorId &id, std::function<void(void *)> callback, unsigned index) {
  if (!isPrepared()) throw error("connectStreamToCallback('{}') needs prepareDevice() first", id);
  if (!ir_->getMainGraph().getTensors().contains(id))
    throw error("connectStreamToCallback: session '{}' has no tensor '{}'", name_, id);
  const int64_t replicas = ir_->getSessionOptions().replicationFactor();
  if (static_cast<int64_t>(index) >= replicas)
    throw error("connectStreamToCallback: replica index {} out of range (the session has {} replica(s))", index,
                replicas);
  devicex_->addTensorCallback(ir_->getTensor(id), std::move(callback), index);
}

void Session::modelToHost(const std::string &fileName) {
  weightsToHost();
  // The model holds one value per group of a Variable with VariableSettings
  // (AllReplicas leaves one per replica on the host: their groups' representatives are written).
  const unsigned replicas = globalReplicas(*ir_);
  std::vector<std::pair<Tensor *, std::vector<char>>> perReplica;
  for (const auto &[id, vs] : nonDefaultVariableSettings(*ir_)) {
    if (!ir_->getMainGraph().getTensors().contains(id)) continue;
    Tensor *t = ir_->getTensor(id);
    const unsigned groups = vs.getGroupCount(replicas);
    if (!t->hasTensorData() || hostSlots(*t) != replicas || groups == replicas) continue;
    const auto nbytes = static_cast<size_t>(t->info.nbytes());
    std::vector<char> one(nbytes * groups);
    const ReplicaGrouping rg = vs.getReplicaGrouping(replicas);
    for (unsigned g = 0; g < groups && nbytes > 0; ++g)
      std::memcpy(one.data() + g * nbytes, t->tensorData().data() + rg.getReplicaAt(g, 0) * nbytes, nbytes);
    perReplica.emplace_back(t, std::move(t->tensorData()));
    t->setTensorData(std::move(one));
  }
  std::string bytes;
  try {
    bytes = exportModelWithWeights(*ir_);
  } catch (...) {
    for (auto &[t, data] : perReplica) t->setTensorData(std::move(data));
    throw;
  }
  for (auto &[t, data] : perReplica) t->setTensorData(std::move(data));
  writeFileAtomically(fileName, bytes, "modelToHost");
}

void Session::updateExternallySavedTensorLocations(const std::string &fromLocation, const std::string &toLocation) {
  const onnxpb::Model *m = ir_->getModel();
  if (!m) throw error("updateExternallySavedTensorLocations: session '{}' has no ONNX model (built from an IR)", name_);
  if (isPrepared()) copyDeviceWeightsToHost();
  onnxpb::Model updated = *m;
  moveExternalData(*ir_, updated, fromLocation, toLocation);
  ir_->setOnnxModel(updated);
}

void Session::resetHostWeights(const std::string &model, bool ignoreMissing) {
  onnxpb::Model m = readModel(model);
  Graph &g = ir_->getMainGraph();
  const auto grouped = nonDefaultVariableSettings(*ir_);
  for (const auto &init : m.graph.initializer) {
    if (!g.getTensors().contains(init.name) || g.getTensor(init.name)->tensorType() != TensorType::Variable) {
      if (ignoreMissing) continue;
      throw error("resetHostWeights: the model has weight '{}', which is not a weight of this session "
                  "(pass ignoreWeightsInModelWithoutCorrespondingHostWeight=True to skip it)", init.name);
    }
    Tensor *t = g.getTensor(init.name);
    TensorInfo info = tensorInfoOf(init);
    const std::vector<char> bytes = tensorBytes(init, info);
    auto vs = grouped.find(init.name);
    if (vs != grouped.end())  // one value per group: [groups, *shape]
      info = TensorInfo(info.dataType(), vs->second.shapeOnReplica(info.shape(), globalReplicas(*ir_), init.name));
    if (info != t->info)
      throw error("resetHostWeights: weight '{}' is {} in the model, {} in the session", init.name,
                  info.toString(), t->info.toString());
    t->setTensorData(bytes);
  }
  if (isPrepared()) weightsFromHost();
}

TensorInfo Session::getInfo(const TensorId &id) const {
  if (!ir_->getMainGraph().getTensors().contains(id))
    throw error("session '{}' has no tensor '{}'", name_, id);
  return ir_->getTensor(id)->info;
}

bool Session::hasInfo(const TensorId &id) const { return ir_->getMainGraph().getTensors().contains(id); }

std::vector<TensorId> Session::getTensorIds() const { return ir_->getMainGraph().getTensors().getAllTensorIds(); }

std::string Session::getSerializedGraph() const { return ir_->serialise(); }

uint64_t Session::getCycleCount(const std::string &) const {
  return devicex_ ? static_cast<uint64_t>(devicex_->lastRunTicks()) : 0;
}

void Session::setRandomSeed(uint64_t seed) { ir_->randomState() = {seed, 0}; }

uint64_t Session::getRandomSeed() const { return ir_->randomState().seed; }

// Words: seed low, seed high, counter low, counter high.
std::vector<uint32_t> Session::getRNGState() const {
  const auto &r = ir_->randomState();
  return {static_cast<uint32_t>(r.seed), static_cast<uint32_t>(r.seed >> 32), static_cast<uint32_t>(r.counter),
          static_cast<uint32_t>(r.counter >> 32)};
}

void Session::setRNGState(const std::vector<uint32_t> &s) {
  if (s.size() != 4) throw error("RNG state must have 4 words (as returned by getRNGState), got {}", s.size());
  ir_->randomState() = {s[0] | (static_cast<uint64_t>(s[1]) << 32), s[2] | (static_cast<uint64_t>(s[3]) << 32)};
}

std::unique_ptr<InferenceSession> InferenceSession::createFromOnnxModel(
    const std::string &model, const DataFlow &dataFlow, std::shared_ptr<DeviceInfo> device,
    const InputShapeInfo &shapes, const SessionOptions &options, const Patterns &patterns, const std::string &name) {
  std::unique_ptr<InferenceSession> s(new InferenceSession(std::move(device), name));
  s->ctorCommonLogic(model, dataFlow, shapes, options, patterns, "", nullptr);
  return s;
}

std::unique_ptr<InferenceSession> InferenceSession::createFromOnnxModel(const std::string &model,
                                                                        const DataFlow &dataFlow,
                                                                        std::shared_ptr<DeviceInfo> device) {
  return createFromOnnxModel(model, dataFlow, std::move(device), InputShapeInfo(), SessionOptions(), Patterns());
}

std::unique_ptr<TrainingSession> TrainingSession::createFromOnnxModel(
    const std::string &model, const DataFlow &dataFlow, const TensorId &loss, const Optimizer &optimizer,
    std::shared_ptr<DeviceInfo> device, const InputShapeInfo &shapes, const SessionOptions &options,
    const Patterns &patterns, const std::string &name) {
  std::unique_ptr<TrainingSession> s(new TrainingSession(std::move(device), name));
  s->ctorCommonLogic(model, dataFlow, shapes, options, patterns, loss, &optimizer);
  return s;
}

std::unique_ptr<TrainingSession> TrainingSession::createFromOnnxModel(const std::string &model,
                                                                      const DataFlow &dataFlow, const TensorId &loss,
                                                                      const Optimizer &optimizer,
                                                                      std::shared_ptr<DeviceInfo> device) {
  return createFromOnnxModel(model, dataFlow, loss, optimizer, std::move(device), InputShapeInfo(), SessionOptions(),
                             Patterns());
}

std::unique_ptr<InferenceSession> InferenceSession::createFromIr(std::shared_ptr<Ir> ir,
                                                                 std::shared_ptr<DeviceInfo> deviceInfo,
                                                                 const std::string name) {
  if (ir && ir->isTraining())
    throw error("InferenceSession.createFromIr: the IR has an optimizer (it trains); use TrainingSession");
  std::unique_ptr<InferenceSession> s(new InferenceSession(std::move(deviceInfo), name));
  s->ctorFromIr(std::move(ir));
  return s;
}

std::unique_ptr<TrainingSession> TrainingSession::createFromIr(std::shared_ptr<Ir> ir,
                                                               std::shared_ptr<DeviceInfo> deviceInfo,
                                                               const std::string name, const Optimizer *optimizer) {
  if (ir && optimizer) {
    if (ir->isPrepared())
      throw error("TrainingSession.createFromIr: the IR is prepared already; its optimizer cannot be set now");
    ir->setOptimizer(*optimizer);
  }
  if (ir && !ir->isTraining())
    throw error("TrainingSession.createFromIr: the IR has no optimizer; set one (Ir::setOptimizer) or pass it");
  if (ir && !ir->isPrepared() && ir->getFinalLossId().empty())
    throw error("TrainingSession.createFromIr: the IR has no final loss (Ir::setFinalLossId)");
  std::unique_ptr<TrainingSession> s(new TrainingSession(std::move(deviceInfo), name));
  s->ctorFromIr(std::move(ir));
  return s;
}

void TrainingSession::updateOptimizerFromHost(const Optimizer *optimizer) {
  if (!optimizer) throw error("updateOptimizerFromHost needs an optimizer");
  ir_->getOptimizer()->validReplacement(*optimizer);
  ir_->setOptimizer(*optimizer);
  refreshOptimizerTensors(*ir_);
  if (!isPrepared()) return;
  for (Tensor *t : ir_->getMainGraph().getTensors().getOfType(TensorType::Variable))
    if (t->id.rfind(reservedLossScalingPrefix(), 0) == 0 || t->id.rfind("OptimizerHyper___", 0) == 0)
      devicex_->writeTensorToDevice(t);
}

} // namespace popart
