// Shapes for model inputs whose ONNX type/shape is missing or symbolic.
#pragma once
#include "popart/tensorinfo.hpp"
#include <map>

namespace popart {

class InputShapeInfo {
public:
  void add(const TensorId &id, const TensorInfo &info) { infos_[id] = info; }
  /// Throws popart::error when `id` has no entry.
  const TensorInfo &get(const TensorId &id) const;
  bool has(const TensorId &id) const { return infos_.count(id) != 0; }
  const std::map<TensorId, TensorInfo> &getInfos() const { return infos_; }

private:
  std::map<TensorId, TensorInfo> infos_;
};

} // namespace popart
