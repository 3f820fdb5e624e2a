#include "popart/tensor.hpp"
#include "popart/error.hpp"
#include "popart/graph.hpp"
#include <algorithm>
#include <cstring>

namespace popart {

std::string toString(TensorType t) {
  switch (t) {
  case TensorType::ActGrad: return "ActGrad";
  case TensorType::Const: return "Const";
  case TensorType::Stream: return "Stream";
  case TensorType::Variable: return "Variable";
  default: return "Unknown";
  }
}

void Consumers::increment(Op *op) {
  auto it = std::find(ops_.begin(), ops_.end(), op);
  if (it == ops_.end()) {
    ops_.push_back(op);
    counts_.push_back(1);
  } else {
    ++counts_[it - ops_.begin()];
  }
}

void Consumers::decrement(Op *op) {
  auto it = std::find(ops_.begin(), ops_.end(), op);
  if (it == ops_.end()) throw internal_error("op {} is not a consumer", op->debugName());
  auto i = it - ops_.begin();
  if (--counts_[i] == 0) {
    ops_.erase(it);
    counts_.erase(counts_.begin() + i);
  }
}

int Consumers::n(Op *op) const {
  auto it = std::find(ops_.begin(), ops_.end(), op);
  return it == ops_.end() ? 0 : counts_[it - ops_.begin()];
}

int Consumers::getTotal() const {
  int total = 0;
  for (int c : counts_) total += c;
  return total;
}

Tensor::Tensor(TensorId id_, TensorType type, Graph &graph) : id(std::move(id_)), type_(type), graph_(graph) {}
Tensor::~Tensor() = default;

Ir &Tensor::getIr() const { return graph_.getIr(); }

Op *Tensor::getProducer() const {
  if (!producer_) throw error("tensor '{}' has no producer", id);
  return producer_;
}

void Tensor::setProducer(Op *op) {
  if (producer_ && producer_ != op)
    throw error("tensor '{}' already has producer {}; cannot also be produced by {}", id,
                producer_->debugName(), op->debugName());
  producer_ = op;
}

const std::vector<char> &Tensor::tensorData() const {
  if (!data_) throw error("tensor '{}' ({}) has no host data", id, toString(type_));
  return *data_;
}

std::vector<char> &Tensor::tensorData() {
  if (!data_) throw error("tensor '{}' ({}) has no host data", id, toString(type_));
  return *data_;
}

void Tensor::setTensorData(const void *src, int64_t nbytes) {
  data_ = std::make_unique<std::vector<char>>(static_cast<size_t>(nbytes));
  if (nbytes) std::memcpy(data_->data(), src, static_cast<size_t>(nbytes));
}

void Tensor::setTensorData(std::vector<char> bytes) {
  data_ = std::make_unique<std::vector<char>>(std::move(bytes));
}

bool Tensor::isGraphInput() const {
  const auto &v = graph_.getInputIds();
  return std::find(v.begin(), v.end(), id) != v.end();
}

bool Tensor::isGraphOutput() const {
  const auto &v = graph_.getOutputIds();
  return std::find(v.begin(), v.end(), id) != v.end();
}

bool Tensor::isOptimizerTensor() const {
  for (const auto &p : reservedOptimizerPrefixes())
    if (id.rfind(p, 0) == 0) return true;
  return false;
}

Tensor *TensorIndexMap::tensor(int index) const {
  auto it = tensors_.find(index);
  if (it == tensors_.end()) throw error("no tensor connected at index {}", index);
  return it->second;
}

const TensorId &TensorIndexMap::id(int index) const { return tensor(index)->id; }

std::vector<int> TensorIndexMap::indices(Tensor *t) const {
  std::vector<int> out;
  for (const auto &[i, x] : tensors_)
    if (x == t) out.push_back(i);
  return out;
}

std::map<int, TensorId> TensorIndexMap::tensorIdMap() const {
  std::map<int, TensorId> out;
  for (const auto &[i, x] : tensors_) out[i] = x->id;
  return out;
}

} // namespace popart
