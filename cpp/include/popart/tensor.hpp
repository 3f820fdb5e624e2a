// A tensor of the IR: identity, type/shape, producer and consumers, and for
// variables and constants the host data it starts from.
#pragma once
#include "popart/tensorinfo.hpp"
#include <memory>
#include <vector>

namespace popart {

class Graph;
class Ir;
class Op;

enum class TensorType { ActGrad = 0, Const, Stream, Unknown, Variable, N };
std::string toString(TensorType t);

/// How a variable is updated/retrieved; only the retrieval part matters on CPU.
enum class VariableRetrievalMode { OnePerGroup = 0, AllReduceReplicas, AllReplicas };

/// The ops consuming a tensor, in the order they were connected, with counts
/// (an op may consume the same tensor at several inputs).
class Consumers {
public:
  void increment(Op *op);
  void decrement(Op *op);  // removes the op when its count reaches zero
  int n(Op *op) const;
  int getTotal() const;
  const std::vector<Op *> &getOps() const { return ops_; }

private:
  std::vector<Op *> ops_;
  std::vector<int> counts_;
};

class Tensor {
public:
  Tensor(TensorId id, TensorType type, Graph &graph);
  ~Tensor();

  const TensorId id;
  TensorInfo info;
  Consumers consumers;

  TensorType tensorType() const { return type_; }
  void setTensorType(TensorType t) { type_ = t; }
  Graph &getGraph() const { return graph_; }
  Ir &getIr() const;

  bool hasProducer() const { return producer_ != nullptr; }
  /// Throws popart::error when the tensor has no producer.
  Op *getProducer() const;
  Op *getProducerUnsafe() const { return producer_; }
  void setProducer(Op *op);
  void resetProducer(Op *op) { producer_ = op; }

  /// Initial host data of Variable/Const tensors (nbytes == info.nbytes()).
  bool hasTensorData() const { return data_ != nullptr; }
  const std::vector<char> &tensorData() const;
  std::vector<char> &tensorData();
  void setTensorData(const void *src, int64_t nbytes);
  void setTensorData(std::vector<char> bytes);

  bool isGraphInput() const;
  bool isGraphOutput() const;
  bool isOptimizerTensor() const;
  std::string str() const { return id; }

private:
  TensorType type_;
  Graph &graph_;
  Op *producer_ = nullptr;
  std::unique_ptr<std::vector<char>> data_;
};

} // namespace popart
