// The per-opset Builder interfaces' shared part (the methods are generated in
// builder_opsets.gen.cpp) and the Builder accessors that hand them out.
#include "popart/builder.hpp"
#include "popart/error.hpp"
#include <cstring>

namespace popart {

std::vector<TensorId> DomainOpSet::addNode(const std::string &opType, const std::vector<TensorId> &args,
                                           int numOutputs, const NodeAttributes &attributes,
                                           const DebugContext &debugContext) {
  return builder_->addOp(domain_, opType, version_, args, numOutputs, attributes, debugContext.getPathName());
}

ConstTensorData DomainOpSet::constTensorData(const ConstVoidData &value) {
  if (!value.data && value.info.nbytes() > 0) throw error("Constant: the ConstVoidData has no data");
  ConstTensorData t{value.info, std::string(static_cast<size_t>(value.info.nbytes()), '\0')};
  if (!t.bytes.empty()) std::memcpy(t.bytes.data(), value.data, t.bytes.size());
  return t;
}

TensorId Builder::addInitializedInputTensor(const ConstVoidData &initData, const DebugContext &debugContext) {
  if (!initData.data && initData.info.nbytes() > 0)
    throw error("addInitializedInputTensor: the ConstVoidData for '{}' has no data", debugContext.getPathName());
  return addInitializedInputTensor(initData.info, initData.data, debugContext.getPathName());
}

AiOnnxOpset6 Builder::aiOnnxOpset6() { return AiOnnxOpset6(this); }
AiOnnxOpset7 Builder::aiOnnxOpset7() { return AiOnnxOpset7(this); }
AiOnnxOpset8 Builder::aiOnnxOpset8() { return AiOnnxOpset8(this); }
AiOnnxOpset9 Builder::aiOnnxOpset9() { return AiOnnxOpset9(this); }
AiOnnxOpset10 Builder::aiOnnxOpset10() { return AiOnnxOpset10(this); }
AiOnnxOpset11 Builder::aiOnnxOpset11() { return AiOnnxOpset11(this); }
AiGraphcoreOpset1 Builder::aiGraphcoreOpset1() { return AiGraphcoreOpset1(this); }

} // namespace popart
