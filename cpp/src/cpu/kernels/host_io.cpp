// HostLoad/HostStore go through the executor's current IStepIO; RemoteLoad/
// RemoteStore copy one entry of an executor-owned remote buffer.
#include "cpu/devicex.hpp"
#include "ops/host_io.hpp"
#include "popart/popx/opx.hpp"
#include "popart/error.hpp"
#include <cstring>
#include <string>

namespace popart::cpu {
namespace {

class HostLoadOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    auto y = getOutTensor(0);
    prog.add([dv = dv_p, id = getOp<HostLoadOp>().streamId(), y] { dv->hostLoad(id, y); });
  }
};

class HostStoreOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    auto x = getInTensor(0);
    prog.add([dv = dv_p, id = getOp<HostStoreOp>().streamId(), x] { dv->hostStore(id, x); });
  }
};

// The offset input (INT32 or INT64, one element), or 0.
int64_t readOffset(const popx::TensorView &offset) {
  if (!offset.raw()) return 0;
  if (offset.dtype() == DataType::INT32) return *static_cast<const int32_t *>(offset.raw());
  return *static_cast<const int64_t *>(offset.raw());
}

class RemoteIoOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const auto &op = getOp<RemoteIoOp>();
    popx::TensorView offset;
    if (hasInput(RemoteIoOp::offsetInIndex)) offset = getInTensor(RemoteIoOp::offsetInIndex);
    const bool load = op.opid.type == "RemoteLoad";
    auto t = load ? getOutTensor(0) : getInTensor(0);
    const auto bytes = static_cast<size_t>(t.nbytes());
    // PopXL's remote buffers declare their entries: an offset past them names the op and the buffer.
    const int64_t entries = op.attr<Attributes::Int>("entries", 0);
    const std::string where = op.debugName() + " (remote buffer '" +
                              op.attr<Attributes::String>("bufferName", std::to_string(op.bufferId())) + "')";
    prog.add([dv = dv_p, id = op.bufferId(), offset, t, load, bytes, entries, where] {
      const int64_t index = readOffset(offset);
      if (entries > 0 && (index < 0 || index >= entries))
        throw runtime_error("{}: offset {} is out of range for a buffer of {} entries", where, index, entries);
      void *entry = dv->remoteEntry(id, index, t.info(), !load);
      if (load) std::memcpy(t.raw(), entry, bytes);
      else std::memcpy(entry, t.raw(), bytes);
    });
  }
};

} // namespace
static popx::OpxCreator<HostLoadOpx> hostLoadOpxCreator(graphcoreOp("HostLoad"));
static popx::OpxCreator<HostStoreOpx> hostStoreOpxCreator(graphcoreOp("HostStore"));
static popx::OpxCreator<RemoteIoOpx> remoteLoadOpxCreator(graphcoreOp("RemoteLoad"));
static popx::OpxCreator<RemoteIoOpx> remoteStoreOpxCreator(graphcoreOp("RemoteStore"));
} // namespace popart::cpu
