// Index -> tensor maps used for op inputs and outputs. Indices may have gaps
// (optional ONNX inputs that are absent).
#pragma once
#include "popart/names.hpp"
#include <map>

namespace popart {

class Tensor;

class TensorIndexMap {
public:
  void insert(int index, Tensor *t) { tensors_[index] = t; }
  void erase(int index) { tensors_.erase(index); }
  void reset(int index, Tensor *t) { tensors_[index] = t; }
  bool hasIndex(int index) const { return tensors_.count(index) != 0; }
  /// Throws popart::error when nothing is connected at `index`.
  Tensor *tensor(int index) const;
  const TensorId &id(int index) const;
  int n() const { return static_cast<int>(tensors_.size()); }
  /// One past the largest connected index (0 when empty).
  int maxIndex() const { return tensors_.empty() ? 0 : tensors_.rbegin()->first + 1; }
  std::vector<int> indices(Tensor *t) const;
  bool contains(Tensor *t) const { return !indices(t).empty(); }
  const std::map<int, Tensor *> &tensorMap() const { return tensors_; }
  std::map<int, TensorId> tensorIdMap() const;
  void clear() { tensors_.clear(); }

private:
  std::map<int, Tensor *> tensors_;
};

} // namespace popart
