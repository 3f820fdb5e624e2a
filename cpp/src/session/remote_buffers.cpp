// The remote buffers of a prepared session's replicas: see remote_buffers.hpp.
#include "remote_buffers.hpp"
#include "cpu/executor.hpp"
#include "popart/error.hpp"
#include "popart/graph.hpp"
#include "popart/ir.hpp"
#include "popart/session.hpp"
#include "popart/tensor.hpp"
#include <cstring>

namespace popart {
namespace {

popx::Devicex &replicaOf(const Session &s, int64_t replica, const char *what) {
  if (!s.isPrepared()) throw error("{}: the session is not prepared (call prepareDevice() first)", what);
  popx::Executor &ex = s.getExecutor();
  if (replica < 0 || replica >= ex.localReplicas())
    throw error("{}: replica {} is out of range (this process runs {} replicas)", what, replica, ex.localReplicas());
  return ex.replica(replica);
}

} // namespace

void readRemoteEntry(const Session &s, int64_t bufferId, int64_t index, int64_t replica, const TensorInfo &entry,
                     void *dst) {
  popx::Devicex &d = replicaOf(s, replica, "readRemoteEntry");
  std::memcpy(dst, d.remoteEntry(bufferId, index, entry, false), static_cast<size_t>(entry.nbytes()));
}

void writeRemoteEntry(Session &s, int64_t bufferId, int64_t index, int64_t replica, const TensorInfo &entry,
                      const void *src) {
  popx::Devicex &d = replicaOf(s, replica, "writeRemoteEntry");
  std::memcpy(d.remoteEntry(bufferId, index, entry, true), src, static_cast<size_t>(entry.nbytes()));
}

void bindRemoteEntry(Session &s, int64_t bufferId, int64_t index, const TensorId &id) {
  replicaOf(s, 0, "bindRemoteEntry");
  const Graph &g = s.getIr().getMainGraph();
  if (!g.getTensors().contains(id)) throw error("bindRemoteEntry: the main graph has no tensor '{}'", id);
  const Tensor *t = g.getTensors().get(id);
  popx::Executor &ex = s.getExecutor();
  for (int64_t r = 0; r < ex.localReplicas(); ++r) ex.replica(r).bindRemoteEntry(bufferId, index, t);
}

} // namespace popart
