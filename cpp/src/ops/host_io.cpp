// HostLoad, HostStore, RemoteLoad and RemoteStore: see host_io.hpp.
#include "host_io.hpp"
#include "popart/error.hpp"
#include "popart/graph.hpp"
#include "popart/ir.hpp"
#include "popart/opmanager.hpp"

namespace popart {

const TensorId &HostIoOp::streamId() const {
  const auto &id = attr<Attributes::String>("streamTensorId");
  if (id.empty()) throw error("attribute 'streamTensorId' must name a host stream, got an empty string");
  return id;
}

void HostLoadOp::setup() {
  if (input->n() != 1) throw error("takes one input (the tensor to load into), got {}", input->n());
  streamId();
  outInfo(0) = inInfo(0);
}

void HostStoreOp::setup() {
  if (input->n() != 1) throw error("takes one input (the tensor to store), got {}", input->n());
  streamId();
}

const HostStoreOp *findHostStore(const Ir &ir, const TensorId &id) {
  for (const Graph *g : ir.getAllGraphs())
    for (const auto &[opId, op] : g->getOps())
      if (auto *store = dynamic_cast<const HostStoreOp *>(op.get()); store && store->streamId() == id) return store;
  return nullptr;
}

int64_t RemoteIoOp::bufferId() const { return attr<Attributes::Int>("bufferid"); }

void RemoteIoOp::setup() {
  if (bufferId() < 0) throw error("attribute 'bufferid' is {}, expected a non-negative buffer id", bufferId());
  if (!hasInput(0)) throw error("input 0 (the tensor to {}) is missing", opid.type == "RemoteLoad" ? "load into" : "store");
  if (hasInput(offsetInIndex)) {
    const TensorInfo &o = inInfo(offsetInIndex);
    if ((o.dataType() != DataType::INT32 && o.dataType() != DataType::INT64) || o.nelms() != 1)
      throw error("input 1 (offset) must be one INT32 or INT64 element, got {}", o.toString());
  }
  if (opid.type == "RemoteLoad") outInfo(0) = inInfo(0);
}

namespace {
/// Every type of whole bytes: host and remote IO copy bytes (PopXL's float8 and bfloat16 included).
std::vector<DataType> byteTypes() {
  auto v = allTypes();
  for (DataType t : {DataType::BFLOAT16, DataType::FLOAT8_143, DataType::FLOAT8_152, DataType::COMPLEX64,
                     DataType::COMPLEX128})
    v.push_back(t);
  for (DataType t : storageTypes())
    if (dataTypeBits(t) % 8 == 0) v.push_back(t);
  return v;
}
} // namespace

POPART_REGISTER_OP(HostLoadOp, graphcoreOp("HostLoad"), byteTypes());
POPART_REGISTER_OP(HostStoreOp, graphcoreOp("HostStore"), byteTypes());
POPART_REGISTER_OP(RemoteIoOp, graphcoreOp("RemoteLoad"), byteTypes());
POPART_REGISTER_OP(RemoteIoOp, graphcoreOp("RemoteStore"), byteTypes());

} // namespace popart
