// A graph of the IR: owns its tensors and ops, knows its inputs/outputs and
// extra scheduling constraints, and produces a deterministic schedule.
#pragma once
#include "popart/op.hpp"
#include <functional>
#include <map>
#include <memory>

namespace popart {

class Ir;
class Tensor;
enum class TensorType;

class Tensors {
public:
  explicit Tensors(Graph &g);
  ~Tensors();
  /// Throws popart::error naming the id and the graph when absent.
  Tensor *get(const TensorId &id) const;
  bool contains(const TensorId &id) const { return tensors_.count(id) != 0; }
  Tensor *addActGrad(const TensorId &id);
  Tensor *addStream(const TensorId &id, const TensorInfo &info);
  Tensor *addVarInit(const TensorId &id, const TensorInfo &info, const void *data);
  Tensor *addConstInit(const TensorId &id, const TensorInfo &info, const void *data);
  void remove(const TensorId &id);
  /// Moves tensor `from` (type, info, data, producer, consumers) to id `to`.
  Tensor *rename(const TensorId &from, const TensorId &to);
  std::vector<TensorId> getAllTensorIds() const;
  std::vector<Tensor *> getOfType(TensorType t) const;
  std::vector<Tensor *> getAll() const;
  int64_t n() const { return static_cast<int64_t>(tensors_.size()); }

private:
  Tensor *insert(const TensorId &id, TensorType type);
  Graph &graph_;
  std::map<TensorId, std::unique_ptr<Tensor>> tensors_;
};

class Graph {
public:
  Graph(Ir &ir, const GraphId &id);
  ~Graph();
  Graph(const Graph &) = delete;
  Graph &operator=(const Graph &) = delete;

  const GraphId id;
  Ir &getIr() const { return ir_; }
  bool isMainGraph() const { return id.empty(); }
  std::string displayName() const { return id.empty() ? "main" : id; }

  Tensors &getTensors() { return tensors_; }
  const Tensors &getTensors() const { return tensors_; }
  Tensor *getTensor(const TensorId &id) const { return tensors_.get(id); }

  const std::map<OpId, std::unique_ptr<Op>> &getOps() const { return ops_; }
  Op *getOp(OpId id) const;
  /// Takes ownership; the op is not connected yet.
  Op *moveIntoGraph(std::unique_ptr<Op> op);
  template <class T, class... Args> T *createOp(Args &&...args) {
    return static_cast<T *>(moveIntoGraph(std::make_unique<T>(std::forward<Args>(args)...)));
  }
  /// Creates an op by identifier through the op registry, connects it and runs setup().
  Op *createConnectedOp(const OperatorIdentifier &opid, const std::map<InIndex, TensorId> &inputs,
                        const std::map<OutIndex, TensorId> &outputs, const Attributes &attrs,
                        const std::string &name = "");
  /// Connects an op already in the graph and runs setup() with error context.
  void connectAndSetup(Op *op, const std::map<InIndex, TensorId> &inputs,
                       const std::map<OutIndex, TensorId> &outputs);
  /// Disconnects and deletes the op (its output tensors stay).
  void eraseOp(OpId id);

  const std::vector<TensorId> &getInputIds() const { return inputs_; }
  const std::vector<TensorId> &getOutputIds() const { return outputs_; }
  TensorId getInputId(int i) const;
  TensorId getOutputId(int i) const;
  /// Adds an input tensor of a sub-graph (ActGrad in the graph's scope).
  void addInput(const TensorId &id, const TensorInfo &info);
  void markAsInput(const TensorId &id);
  void markAsOutput(const TensorId &id);
  void removeOutput(const TensorId &id);
  void replaceOutput(int index, const TensorId &id);
  /// Renames a tensor everywhere in this graph (connections, inputs, outputs).
  void renameTensor(const TensorId &from, const TensorId &to);

  /// Extra ordering constraints: `before` runs before `after`.
  void addTopoCon(Op *before, Op *after);
  const std::vector<std::pair<OpId, OpId>> &getTopoCons() const { return topoCons_; }
  void removeTopoCons(Op *op);

  /// Deterministic topological order (Kahn): among ready ops, higher
  /// schedulePriority first, then lower OpId.
  std::vector<Op *> getOpSchedule() const;
  /// Ops that consume a tensor of the graph ordered by the schedule.
  std::vector<Op *> getCallSiteOps() const;

private:
  Ir &ir_;
  Tensors tensors_;
  std::map<OpId, std::unique_ptr<Op>> ops_;
  std::vector<TensorId> inputs_, outputs_;
  std::vector<std::pair<OpId, OpId>> topoCons_;
};

/// Runs `f` and prefixes any popart::error with "while setting up <op>, inputs [...]".
void withOpContext(const Op &op, const char *what, const std::function<void()> &f);

} // namespace popart
