// Builder::inferTensorInfos: types and shapes from the op registry. The model
// built so far is imported into a scratch IR, where every op (ai.onnx,
// ai.graphcore, or a custom op with its own setup()) infers its outputs as it
// would in a session; the builder records what it finds.
#include "onnx/builder_impl.hpp"
#include "onnx/import.hpp"
#include "popart/error.hpp"
#include "popart/graph.hpp"
#include "popart/ir.hpp"
#include "popart/logging.hpp"
#include "popart/tensor.hpp"

namespace popart {

void Builder::inferTensorInfos() {
  if (parent_) return;  // sub-graphs read enclosing tensors: typed through the parent's model
  Ir ir;
  ir.setOnnxModel(impl_->exportModel());
  try {
    importModel(ir);
  } catch (const error &e) {
    // The nodes before the one that failed (an untyped input, a node with a bad
    // attribute) are typed all the same.
    logging::builder::debug("type inference stopped early: {}", e.what());
  }
  const auto &tensors = ir.getMainGraph().getTensors();
  for (const auto &id : tensors.getAllTensorIds()) {
    const TensorInfo &info = tensors.get(id)->info;
    if (info.isSet() && impl_->hasTensor(id) && !impl_->findTypedValueInfo(id)) impl_->setValueInfo(id, info);
  }
}

} // namespace popart
