// The IR: graphs, options and the state shared by every layer.
#include "popart/ir.hpp"
#include "onnx/model.hpp"
#include "popart/dataflow.hpp"
#include "popart/error.hpp"
#include "popart/graph.hpp"
#include "popart/inputshapeinfo.hpp"
#include "popart/logging.hpp"
#include "popart/optimizer.hpp"
#include "popart/patterns.hpp"
#include "popart/sessionoptions.hpp"
#include "popart/tensor.hpp"

namespace popart {

Ir::Ir()
    : options_(std::make_unique<SessionOptions>()), dataFlow_(std::make_unique<DataFlow>()),
      patterns_(std::make_unique<Patterns>()), inputShapeInfo_(std::make_unique<InputShapeInfo>()) {
  graphs_[""] = std::make_unique<Graph>(*this, "");
}

Ir::~Ir() {
  // Sub-graphs first: their ops may be referenced by name from the main graph only.
  for (auto it = graphs_.begin(); it != graphs_.end();)
    it = it->first.empty() ? std::next(it) : graphs_.erase(it);
  graphs_.clear();
}

Graph &Ir::getMainGraph() const { return *graphs_.at(""); }

Graph &Ir::getGraph(const GraphId &id) const {
  auto it = graphs_.find(id);
  if (it == graphs_.end()) throw error("the IR has no graph '{}'", id);
  return *it->second;
}

bool Ir::hasGraph(const GraphId &id) const { return graphs_.count(id) != 0; }

Graph &Ir::createGraph(const GraphId &id) {
  if (hasGraph(id)) throw error("graph '{}' already exists", id);
  return *(graphs_[id] = std::make_unique<Graph>(*this, id));
}

void Ir::removeGraph(const GraphId &id) {
  if (id.empty()) throw error("the main graph cannot be removed");
  graphs_.erase(id);
}

std::vector<Graph *> Ir::getAllGraphs() const {
  std::vector<Graph *> out;
  for (const auto &kv : graphs_) out.push_back(kv.second.get());
  return out;
}

std::vector<Graph *> Ir::getGraphSchedule() const {
  std::vector<Graph *> order, stack{&getMainGraph()};
  std::set<const Graph *> seen;
  std::function<void(Graph *)> visit = [&](Graph *g) {
    if (!seen.insert(g).second) return;
    for (const auto &[id, op] : g->getOps())
      for (const auto &[name, v] : op->attributes().values()) {
        if (auto *gr = std::get_if<Attributes::Graph>(&v)) visit(&getGraph(gr->id));
        if (auto *gs = std::get_if<Attributes::Graphs>(&v))
          for (const auto &x : *gs) visit(&getGraph(x.id));
      }
    order.push_back(g);
  };
  visit(&getMainGraph());
  return order;
}

Tensor *Ir::getTensor(const TensorId &id) const { return getMainGraph().getTensor(id); }

void Ir::setUserOptions(const SessionOptions &o) { *options_ = o; }
void Ir::setDataFlow(const DataFlow &df) { *dataFlow_ = df; }
void Ir::setPatterns(const Patterns &p) { *patterns_ = p; }
void Ir::setOnnxModel(const onnxpb::Model &m) { model_ = std::make_unique<onnxpb::Model>(m); }
void Ir::setOptimizer(const Optimizer &o) { optimizer_ = o.clone(); }

bool Ir::isExplicitProgram() const { return !model_ && options_->enableExplicitMainLoops; }

int64_t Ir::getOpSetVersion(const std::string &domain) const {
  std::string d = domain.empty() ? Domain::ai_onnx : domain;
  if (model_)
    for (const auto &os : model_->opsetImport)
      if ((os.domain.empty() ? std::string(Domain::ai_onnx) : os.domain) == d) return os.version;
  return d == Domain::ai_graphcore ? 1 : 0;
}

TensorId Ir::createIntermediateTensorId(const TensorId &base) {
  for (;;) {
    TensorId id = base + "__" + std::to_string(idCounter_++);
    bool used = hasGraph(id);
    for (const auto &kv : graphs_) used = used || kv.second->getTensors().contains(id);
    if (!used) return id;
  }
}

} // namespace popart
