// Records which activations oneDNN producers left in a blocked layout (see tensor_layout.hpp).
#ifdef POPART_WITH_DNNL
#include "tensor_layout.hpp"
#include "popart/dataflow.hpp"
#include "popart/graph.hpp"
#include "popart/ir.hpp"
#include "popart/op.hpp"
#include "popart/tensor.hpp"
#include <map>
#include <mutex>

namespace popart::cpu::tensor_layout {
namespace {

std::mutex &registryMutex() {
  static std::mutex m;
  return m;
}

// Keyed by the IR tensor; producers overwrite their entry in every grow(), so an entry left by a destroyed
// IR is never read: consumers only look up tensors whose producer publishes (see layoutOf).
std::map<const Tensor *, dnnl::memory::desc> &registry() {
  static std::map<const Tensor *, dnnl::memory::desc> r;
  return r;
}

bool isOnnx(const Op &op, const char *type) { return op.opid.domain == Domain::ai_onnx && op.opid.type == type; }
bool isConv(const Op &op) {
  return isOnnx(op, "Conv") || (op.opid.domain == Domain::ai_graphcore && op.opid.type == "ConvFused");
}
bool isPool(const Op &op) {
  return (isOnnx(op, "MaxPool") || isOnnx(op, "AveragePool")) && op.output->n() == 1 &&
         op.attr<Attributes::Int>("ceil_mode", 0) == 0;
}

/// Whether `op` reads `t` only where any layout is accepted.
bool acceptsLayout(const Op &op, const Tensor &t) {
  for (int i : op.input->indices(const_cast<Tensor *>(&t)))
    if (!(isConv(op) && (i == 0 || i == 3)) && !(isPool(op) && i == 0)) return false;
  return isConv(op) || isPool(op);
}

} // namespace

bool mayBlock(const Tensor &t) {
  const Op *p = t.getProducerUnsafe();
  if (!p || !(isConv(*p) || isPool(*p)) || t.info.dataType() != DataType::FLOAT ||
      t.tensorType() != TensorType::ActGrad || t.isGraphOutput() || p->getIr().isTraining() ||
      p->getIr().getDataFlow().isAnchored(t.id) || !p->hasInput(0) || p->inTensor(0)->tensorType() == TensorType::Const)
    return false;
  for (const Op *c : t.consumers.getOps())
    if (!acceptsLayout(*c, t) || c->settings.executionContext != p->settings.executionContext) return false;
  return t.consumers.getTotal() > 0;
}

void publish(const Tensor &t, const dnnl::memory::desc &md) {
  std::lock_guard<std::mutex> lock(registryMutex());
  if (md.is_zero() || md == dnnl_ctx::plainDesc(t.info.shape())) registry().erase(&t);
  else registry()[&t] = md;
}

dnnl::memory::desc layoutOf(const Tensor &t) {
  auto plain = dnnl_ctx::plainDesc(t.info.shape());
  const Op *p = t.getProducerUnsafe();
  if (!p || !(isConv(*p) || isPool(*p)) || t.info.dataType() != DataType::FLOAT) return plain;
  std::lock_guard<std::mutex> lock(registryMutex());
  auto it = registry().find(&t);
  return it == registry().end() ? plain : it->second;
}

dnnl::memory::desc storable(const Tensor &t, const dnnl::memory::desc &md) {
  if (mayBlock(t) && md.get_size() <= static_cast<size_t>(t.info.nbytes())) return md;
  return dnnl_ctx::plainDesc(t.info.shape());
}

} // namespace popart::cpu::tensor_layout
#endif
