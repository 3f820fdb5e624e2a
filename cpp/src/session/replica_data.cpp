// Per-replica device data of a prepared session: see replica_data.hpp.
#include "replica_data.hpp"
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

const Tensor *mainGraphTensor(const Session &s, const TensorId &id, int64_t nbytes, const char *what) {
  const Graph &g = s.getIr().getMainGraph();
  if (!g.getTensors().contains(id)) throw error("{}: the main graph has no tensor '{}'", what, id);
  const Tensor *t = g.getTensors().get(id);
  if (nbytes != t->info.nbytes())
    throw error("{}: {} bytes for tensor '{}', which holds {} ({})", what, nbytes, id, t->info.nbytes(),
                t->info.toString());
  return t;
}

} // namespace

int64_t localReplicas(const Session &s) { return s.isPrepared() ? s.getExecutor().localReplicas() : 0; }

void readReplicaTensor(const Session &s, const TensorId &id, int64_t replica, void *dst, int64_t nbytes) {
  popx::Devicex &d = replicaOf(s, replica, "readReplicaTensor");
  const Tensor *t = mainGraphTensor(s, id, nbytes, "readReplicaTensor");
  std::memcpy(dst, d.view(t).raw(), static_cast<size_t>(nbytes));
}

void writeReplicaTensor(Session &s, const TensorId &id, int64_t replica, const void *src, int64_t nbytes) {
  popx::Devicex &d = replicaOf(s, replica, "writeReplicaTensor");
  const Tensor *t = mainGraphTensor(s, id, nbytes, "writeReplicaTensor");
  std::memcpy(d.view(t).raw(), src, static_cast<size_t>(nbytes));
  d.markHostWrite();
}

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

} // namespace popart
