// Per-replica device data of a prepared session, for front ends whose host
// data differs between replicas (PopXL's replica-sharded variables) or lives
// in remote buffers (PopXL's remote variables). `replica` is a local replica
// of this process; the session must be prepared.
#pragma once
#include "popart/names.hpp"
#include "popart/tensorinfo.hpp"
#include <cstdint>

namespace popart {

class Session;

/// The replicas this process runs (0 before the session is prepared).
int64_t localReplicas(const Session &s);

/// Copies `nbytes` between the host and the device buffer of main-graph
/// tensor `id` on `replica` (nbytes must be the tensor's size).
void readReplicaTensor(const Session &s, const TensorId &id, int64_t replica, void *dst, int64_t nbytes);
void writeReplicaTensor(Session &s, const TensorId &id, int64_t replica, const void *src, int64_t nbytes);

/// Copies entry `index` (shaped `entry`) of remote buffer `bufferId` on
/// `replica`. A write adds the entries up to `index` (zero-filled); a read
/// needs an entry written before (by the host or a RemoteStore).
void readRemoteEntry(const Session &s, int64_t bufferId, int64_t index, int64_t replica, const TensorInfo &entry,
                     void *dst);
void writeRemoteEntry(Session &s, int64_t bufferId, int64_t index, int64_t replica, const TensorInfo &entry,
                      const void *src);

} // namespace popart
