// The remote buffers of a prepared session's replicas, for front ends that
// keep variables in them (PopXL's remote and replica-sharded variables).
// `replica` is a local replica of this process.
#pragma once
#include "popart/names.hpp"
#include "popart/tensorinfo.hpp"
#include <cstdint>

namespace popart {

class Session;

/// Copies entry `index` (shaped `entry`) of remote buffer `bufferId` on
/// `replica`. A write adds the entries up to `index` (zero-filled); a read
/// needs an entry written before (by the host or a RemoteStore).
void readRemoteEntry(const Session &s, int64_t bufferId, int64_t index, int64_t replica, const TensorInfo &entry,
                     void *dst);
void writeRemoteEntry(Session &s, int64_t bufferId, int64_t index, int64_t replica, const TensorInfo &entry,
                      const void *src);

/// On every local replica: entry `index` of remote buffer `bufferId` is the
/// device buffer of main-graph variable `id` from now on (see Devicex).
void bindRemoteEntry(Session &s, int64_t bufferId, int64_t index, const TensorId &id);

} // namespace popart
