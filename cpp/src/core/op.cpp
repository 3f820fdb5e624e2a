#include "popart/op.hpp"
#include "popart/error.hpp"
#include "popart/graph.hpp"
#include "popart/ir.hpp"
#include "popart/tensor.hpp"
#include "popart/half.hpp"

namespace popart {

Op::Op(const OperatorIdentifier &opid_, const Settings &settings_)
    : opid(opid_), settings(settings_), id(settings_.graph->getIr().getAndIncrOpsCounter()),
      input(std::make_unique<TensorIndexMap>()), output(std::make_unique<TensorIndexMap>()) {}

Op::Op(const Op &other)
    : opid(other.opid), settings(other.settings), id(other.getIr().getAndIncrOpsCounter()),
      input(std::make_unique<TensorIndexMap>()), output(std::make_unique<TensorIndexMap>()),
      attributes_(other.attributes_) {}

Op::~Op() = default;

Ir &Op::getIr() const { return settings.graph->getIr(); }

void Op::setup() { throw error("op {} does not implement setup()", debugName()); }

std::vector<std::unique_ptr<Op>> Op::getGradOps() {
  throw error("op {} is not differentiable (it has no gradient ops)", debugName());
}

const std::vector<GradInOutMapper> &Op::gradInputInfo() const {
  throw error("op {} is not a gradient op (gradInputInfo)", debugName());
}

const std::map<int, int> &Op::gradOutToNonGradIn() const {
  throw error("op {} is not a gradient op (gradOutToNonGradIn)", debugName());
}

void Op::appendAttributes(OpSerialiserBase &os) const {
  for (const auto &[name, value] : attributes_.values()) os.appendAttribute(name, toString(value));
}

void Op::appendOutlineAttributes(OpSerialiserBase &os) const { appendAttributes(os); }

std::unique_ptr<Op> Op::getInplaceVariant(const OperatorIdentifier &other) const {
  throw error("op {} has no in-place variant {}", debugName(), toString(other));
}

std::string Op::debugName() const {
  std::string n = settings.name.empty() ? opid.type + "_" + std::to_string(id) : settings.name;
  return n + " (" + toString(opid) + ")";
}

const TensorInfo &Op::inInfo(InIndex i) const { return inTensor(i)->info; }
TensorInfo &Op::outInfo(OutIndex i) { return outTensor(i)->info; }
const TensorInfo &Op::outInfo(OutIndex i) const { return outTensor(i)->info; }
const Shape &Op::inShape(InIndex i) const { return inInfo(i).shape(); }
const Shape &Op::outShape(OutIndex i) const { return outInfo(i).shape(); }

Tensor *Op::inTensor(InIndex i) const {
  if (!input->hasIndex(i)) throw error("op {} has no input at index {}", debugName(), i);
  return input->tensor(i);
}

Tensor *Op::outTensor(OutIndex i) const {
  if (!output->hasIndex(i)) throw error("op {} has no output at index {}", debugName(), i);
  return output->tensor(i);
}

const TensorId &Op::inId(InIndex i) const { return inTensor(i)->id; }
const TensorId &Op::outId(OutIndex i) const { return outTensor(i)->id; }
bool Op::hasInput(InIndex i) const { return input->hasIndex(i); }
bool Op::hasOutput(OutIndex i) const { return output->hasIndex(i); }

void Op::connectInTensor(InIndex i, const TensorId &tid) {
  Tensor *t = getGraph().getTensors().get(tid);
  if (input->hasIndex(i)) disconnectInTensor(i);
  input->insert(i, t);
  t->consumers.increment(this);
}

void Op::connectOutTensor(OutIndex i, const TensorId &tid) {
  Tensor *t = getGraph().getTensors().get(tid);
  t->setProducer(this);
  output->insert(i, t);
}

void Op::createAndConnectOutTensor(OutIndex i, const TensorId &tid) {
  getGraph().getTensors().addActGrad(tid);
  connectOutTensor(i, tid);
}

void Op::disconnectInTensor(InIndex i) {
  Tensor *t = inTensor(i);
  t->consumers.decrement(this);
  input->erase(i);
}

void Op::disconnectOutTensor(OutIndex i) {
  Tensor *t = outTensor(i);
  if (t->getProducerUnsafe() == this) t->resetProducer(nullptr);
  output->erase(i);
}

void Op::disconnectAllInputs() {
  auto m = input->tensorMap();
  for (const auto &kv : m) disconnectInTensor(kv.first);
}

void Op::disconnectAllOutputs() {
  auto m = output->tensorMap();
  for (const auto &kv : m) disconnectOutTensor(kv.first);
}

void OpSerialiserBase::appendAttribute(const std::string &name, int64_t v) { appendAttribute(name, std::to_string(v)); }
void OpSerialiserBase::appendAttribute(const std::string &name, float v) { appendAttribute(name, FormatArg(v).str()); }
void OpSerialiserBase::appendAttribute(const std::string &name, const std::vector<int64_t> &v) {
  appendAttribute(name, FormatArg(v).str());
}
void OpSerialiserBase::appendAttribute(const std::string &name, bool v) { appendAttribute(name, std::string(v ? "true" : "false")); }

} // namespace popart

namespace popart {
namespace {

template <class Out> std::vector<Out> convertConst(const Tensor &t) {
  const auto &bytes = t.tensorData();
  int64_t n = t.info.nelms();
  std::vector<Out> out(static_cast<size_t>(n));
  auto fill = [&](auto tag) {
    using T = decltype(tag);
    const T *p = reinterpret_cast<const T *>(bytes.data());
    for (int64_t i = 0; i < n; ++i) out[i] = static_cast<Out>(p[i]);
  };
  switch (t.info.dataType()) {
  case DataType::INT64: fill(int64_t{}); break;
  case DataType::INT32: fill(int32_t{}); break;
  case DataType::INT16: fill(int16_t{}); break;
  case DataType::INT8: fill(int8_t{}); break;
  case DataType::UINT8: case DataType::BOOL: fill(uint8_t{}); break;
  case DataType::UINT16: fill(uint16_t{}); break;
  case DataType::UINT32: fill(uint32_t{}); break;
  case DataType::UINT64: fill(uint64_t{}); break;
  case DataType::FLOAT: fill(float{}); break;
  case DataType::DOUBLE: fill(double{}); break;
  case DataType::FLOAT16: {
    const float16_t *p = reinterpret_cast<const float16_t *>(bytes.data());
    for (int64_t i = 0; i < n; ++i) out[i] = static_cast<Out>(static_cast<float>(p[i]));
    break;
  }
  default: throw error("constant tensor '{}' has unsupported type {}", t.id, t.info.data_type());
  }
  return out;
}

} // namespace

bool Op::inIsConst(InIndex i) const {
  return hasInput(i) && inTensor(i)->tensorType() == TensorType::Const && inTensor(i)->hasTensorData();
}

std::vector<int64_t> Op::inConstInts(InIndex i) const {
  if (!inIsConst(i))
    throw error("input {} ('{}') must be a constant known at compile time", i,
                hasInput(i) ? inId(i) : std::string("<absent>"));
  return convertConst<int64_t>(*inTensor(i));
}

std::vector<double> Op::inConstFloats(InIndex i) const {
  if (!inIsConst(i))
    throw error("input {} ('{}') must be a constant known at compile time", i,
                hasInput(i) ? inId(i) : std::string("<absent>"));
  return convertConst<double>(*inTensor(i));
}

} // namespace popart
