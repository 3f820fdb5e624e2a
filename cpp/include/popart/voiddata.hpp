// Untyped views of host tensor data with their TensorInfo (PopART's voiddata.hpp):
// what step IO hands over and what Builder::addInitializedInputTensor copies.
#pragma once
#include "popart/tensorinfo.hpp"
#include <memory>
#include <vector>

namespace popart {

struct ConstVoidData {
  const void *data = nullptr;
  TensorInfo info;
  ConstVoidData() = default;
  ConstVoidData(const void *d, const TensorInfo &i) : data(d), info(i) {}
  void store(std::vector<char> &&d, const TensorInfo &i);  // keeps its own copy
  std::shared_ptr<std::vector<char>> owned;
};

struct MutableVoidData {
  void *data = nullptr;
  TensorInfo info;
};

} // namespace popart
