#include "popart/graph.hpp"
#include "core/op_context.hpp"
#include "core/registrant.hpp"
#include "popart/error.hpp"
#include "popart/ir.hpp"
#include "popart/opmanager.hpp"
#include "popart/tensor.hpp"
#include <algorithm>
#include <optional>
#include <queue>
#include <set>

namespace popart {

// ---- Tensors ----

Tensors::Tensors(Graph &g) : graph_(g) {}
Tensors::~Tensors() = default;

Tensor *Tensors::get(const TensorId &id) const {
  auto it = tensors_.find(id);
  if (it == tensors_.end())
    throw error("no tensor '{}' in graph '{}'", id, graph_.displayName());
  return it->second.get();
}

Tensor *Tensors::insert(const TensorId &id, TensorType type) {
  if (id.empty()) throw error("tensor ids must not be empty (graph '{}')", graph_.displayName());
  if (contains(id)) throw error("tensor '{}' already exists in graph '{}'", id, graph_.displayName());
  auto t = std::make_unique<Tensor>(id, type, graph_);
  Tensor *raw = t.get();
  tensors_[id] = std::move(t);
  return raw;
}

Tensor *Tensors::addActGrad(const TensorId &id) { return insert(id, TensorType::ActGrad); }

Tensor *Tensors::addStream(const TensorId &id, const TensorInfo &info) {
  Tensor *t = insert(id, TensorType::Stream);
  t->info = info;
  return t;
}

Tensor *Tensors::addVarInit(const TensorId &id, const TensorInfo &info, const void *data) {
  Tensor *t = insert(id, TensorType::Variable);
  t->info = info;
  t->setTensorData(data, info.nbytes());
  return t;
}

Tensor *Tensors::addConstInit(const TensorId &id, const TensorInfo &info, const void *data) {
  Tensor *t = insert(id, TensorType::Const);
  t->info = info;
  t->setTensorData(data, info.nbytes());
  return t;
}

void Tensors::remove(const TensorId &id) { tensors_.erase(id); }

Tensor *Tensors::rename(const TensorId &from, const TensorId &to) {
  Tensor *old = get(from);
  Tensor *t = insert(to, old->tensorType());
  t->info = old->info;
  if (old->hasTensorData()) t->setTensorData(old->tensorData());
  if (Op *p = old->getProducerUnsafe()) {
    for (int i : p->output->indices(old)) p->output->reset(i, t);
    t->resetProducer(p);
  }
  for (Op *c : std::vector<Op *>(old->consumers.getOps()))
    for (int i : c->input->indices(old)) {
      c->input->reset(i, t);
      t->consumers.increment(c);
    }
  tensors_.erase(from);
  return t;
}

std::vector<TensorId> Tensors::getAllTensorIds() const {
  std::vector<TensorId> ids;
  for (const auto &kv : tensors_) ids.push_back(kv.first);
  return ids;
}

std::vector<Tensor *> Tensors::getOfType(TensorType type) const {
  std::vector<Tensor *> out;
  for (const auto &kv : tensors_)
    if (kv.second->tensorType() == type) out.push_back(kv.second.get());
  return out;
}

std::vector<Tensor *> Tensors::getAll() const {
  std::vector<Tensor *> out;
  for (const auto &kv : tensors_) out.push_back(kv.second.get());
  return out;
}

// ---- Graph ----

Graph::Graph(Ir &ir, const GraphId &id_) : id(id_), ir_(ir), tensors_(*this) {}

Graph::~Graph() {
  // Ops reference tensors through their maps; drop ops first.
  ops_.clear();
}

Op *Graph::getOp(OpId opId) const {
  auto it = ops_.find(opId);
  if (it == ops_.end()) throw error("no op with id {} in graph '{}'", opId, displayName());
  return it->second.get();
}

Op *Graph::moveIntoGraph(std::unique_ptr<Op> op) {
  if (op->settings.graph != this)
    throw internal_error("op {} belongs to graph '{}', not '{}'", op->debugName(),
                         op->getGraph().displayName(), displayName());
  Op *raw = op.get();
  ops_[raw->id] = std::move(op);
  return raw;
}

std::string opContextOf(const Op &op) {
  std::string ins;
  for (const auto &[i, t] : op.input->tensorMap())
    ins += (ins.empty() ? "" : ", ") + t->id + ":" + t->info.toString();
  return op.debugName() + ", inputs [" + ins + "]";
}

void withOpContext(const std::string &opContext, const char *what, const std::function<void()> &f) {
  try {
    f();
  } catch (const internal_error &) {
    throw;
  } catch (const memory_allocation_err &e) {  // keeps its class: popart_memory_allocation_error in Python
    throw memory_allocation_err("while {} {}: {}", what, opContext, e.what());
  } catch (...) {
    std::string message;
    try {
      throw;
    } catch (const error &e) {
      message = e.what();
    } catch (...) {
      message = "user code threw " + describeForeignException();  // rethrows std::bad_alloc
    }
    throw error("while {} {}: {}", what, opContext, message);
  }
}

void withOpContext(const Op &op, const char *what, const std::function<void()> &f) {
  try {
    f();
  } catch (const internal_error &) {
    throw;
  } catch (...) {
    withOpContext(opContextOf(op), what, [] { throw; });
  }
}

namespace {
// Enforces the data-type constraints of the op's OpDefinition.
void checkInputTypes(const Op &op) {
  const OpDefinition *def = OpManager::getDefinition(op.opid);
  if (!def) return;
  for (size_t i = 0; i < def->inputs.size(); ++i) {
    const auto &allowed = def->inputs[i].supportedTensors;
    if (allowed.empty() || !op.hasInput(static_cast<InIndex>(i))) continue;
    DataType t = op.inInfo(static_cast<InIndex>(i)).dataType();
    if (std::find(allowed.begin(), allowed.end(), t) != allowed.end()) continue;
    std::vector<std::string> names;
    for (auto a : allowed) names.push_back(toString(a));
    throw error("input {} ('{}') has type {}, expected one of {}", i, def->inputs[i].name,
                toString(t), names);
  }
}
} // namespace

void Graph::connectAndSetup(Op *op, const std::map<InIndex, TensorId> &inputs,
                            const std::map<OutIndex, TensorId> &outputs) {
  for (const auto &[i, t] : inputs) op->connectInTensor(i, t);
  for (const auto &[i, t] : outputs) {
    if (tensors_.contains(t)) op->connectOutTensor(i, t);
    else op->createAndConnectOutTensor(i, t);
  }
  withOpContext(*op, "setting up", [op] {
    checkInputTypes(*op);
    op->setup();
  });
}

Op *Graph::createConnectedOp(const OperatorIdentifier &opid, const std::map<InIndex, TensorId> &inputs,
                             const std::map<OutIndex, TensorId> &outputs, const Attributes &attrs,
                             const std::string &name) {
  Op::Settings settings(*this, name);
  Op *op = moveIntoGraph(OpManager::createOp(opid, settings, attrs));
  connectAndSetup(op, inputs, outputs);
  return op;
}

void Graph::eraseOp(OpId opId) {
  Op *op = getOp(opId);
  op->disconnectAllInputs();
  op->disconnectAllOutputs();
  removeTopoCons(op);
  ops_.erase(opId);
}

TensorId Graph::getInputId(int i) const {
  if (i < 0 || i >= static_cast<int>(inputs_.size()))
    throw error("graph '{}' has {} inputs, no input {}", displayName(), inputs_.size(), i);
  return inputs_[i];
}

TensorId Graph::getOutputId(int i) const {
  if (i < 0 || i >= static_cast<int>(outputs_.size()))
    throw error("graph '{}' has {} outputs, no output {}", displayName(), outputs_.size(), i);
  return outputs_[i];
}

void Graph::addInput(const TensorId &tid, const TensorInfo &info) {
  tensors_.addActGrad(tid)->info = info;
  inputs_.push_back(tid);
}

void Graph::markAsInput(const TensorId &tid) {
  tensors_.get(tid);
  if (std::find(inputs_.begin(), inputs_.end(), tid) == inputs_.end()) inputs_.push_back(tid);
}

void Graph::markAsOutput(const TensorId &tid) {
  tensors_.get(tid);
  outputs_.push_back(tid);
}

void Graph::removeOutput(const TensorId &tid) {
  outputs_.erase(std::remove(outputs_.begin(), outputs_.end(), tid), outputs_.end());
}

void Graph::replaceOutput(int index, const TensorId &tid) {
  getOutputId(index);
  tensors_.get(tid);
  outputs_[index] = tid;
}

void Graph::renameTensor(const TensorId &from, const TensorId &to) {
  tensors_.rename(from, to);
  for (auto *ids : {&inputs_, &outputs_})
    std::replace(ids->begin(), ids->end(), from, to);
}

void Graph::addTopoCon(Op *before, Op *after) { topoCons_.emplace_back(before->id, after->id); }

void Graph::removeTopoCons(Op *op) {
  topoCons_.erase(std::remove_if(topoCons_.begin(), topoCons_.end(),
                                 [op](const auto &c) { return c.first == op->id || c.second == op->id; }),
                  topoCons_.end());
}

std::vector<Op *> Graph::getOpSchedule() const {
  std::map<OpId, int> waiting;
  std::map<OpId, std::vector<Op *>> successors;
  for (const auto &[oid, op] : ops_) waiting[oid] = 0;
  for (const auto &[oid, op] : ops_) {
    for (const auto &[i, t] : op->input->tensorMap()) {
      Op *p = t->getProducerUnsafe();
      if (p && ops_.count(p->id)) {
        ++waiting[oid];
        successors[p->id].push_back(op.get());
      }
    }
  }
  for (const auto &[b, a] : topoCons_) {
    if (!ops_.count(b) || !ops_.count(a)) continue;
    ++waiting[a];
    successors[b].push_back(ops_.at(a).get());
  }
  // Ready ops: highest priority first, then lowest id. In a graph placed on
  // pipeline stages, among ops of the top priority one of the stage just
  // scheduled goes first, so each stage's work stays in as few runs of
  // consecutive ops as the dependencies allow (each change of stage is a
  // hand-off between the pipeline's threads).
  auto later = [](Op *x, Op *y) {
    if (x->settings.schedulePriority != y->settings.schedulePriority)
      return x->settings.schedulePriority < y->settings.schedulePriority;
    return x->id > y->id;
  };
  using Ready = std::priority_queue<Op *, std::vector<Op *>, decltype(later)>;
  Ready ready(later);
  std::map<PipelineStage, Ready> readyOfStage;  // the same ops again, by stage (stale entries skipped)
  std::set<OpId> done;
  bool staged = false;
  for (const auto &[oid, op] : ops_) staged = staged || op->settings.pipelineStage.has_value();
  auto push = [&](Op *op) {
    ready.push(op);
    if (staged && op->settings.pipelineStage)
      readyOfStage.try_emplace(*op->settings.pipelineStage, later).first->second.push(op);
  };
  auto pop = [&](Ready &q) -> Op * {
    while (!q.empty() && done.count(q.top()->id)) q.pop();
    return q.empty() ? nullptr : q.top();
  };
  for (const auto &[oid, n] : waiting)
    if (n == 0) push(ops_.at(oid).get());
  std::vector<Op *> order;
  order.reserve(ops_.size());
  std::optional<PipelineStage> stage;
  while (Op *op = pop(ready)) {
    if (stage) {
      auto it = readyOfStage.find(*stage);
      Op *same = it == readyOfStage.end() ? nullptr : pop(it->second);
      if (same && same->settings.schedulePriority == op->settings.schedulePriority) op = same;
    }
    done.insert(op->id);
    if (op->settings.pipelineStage) stage = op->settings.pipelineStage;
    order.push_back(op);
    for (Op *s : successors[op->id])
      if (--waiting[s->id] == 0) push(s);
  }
  if (order.size() != ops_.size())
    throw error("graph '{}' has a cycle: only {} of {} ops could be scheduled", displayName(),
                order.size(), ops_.size());
  return order;
}

std::vector<Op *> Graph::getCallSiteOps() const {
  std::vector<Op *> sites;
  for (Graph *g : ir_.getAllGraphs()) {
    for (const auto &[oid, op] : g->getOps()) {
      for (const auto &[name, v] : op->attributes().values()) {
        if (auto *gr = std::get_if<Attributes::Graph>(&v); gr && gr->id == id) sites.push_back(op.get());
        if (auto *gs = std::get_if<Attributes::Graphs>(&v))
          for (const auto &x : *gs)
            if (x.id == id) sites.push_back(op.get());
      }
    }
  }
  return sites;
}

} // namespace popart
