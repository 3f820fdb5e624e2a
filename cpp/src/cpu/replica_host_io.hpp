// Host streams of replicas that run concurrently while the program does its
// own host IO (HostLoad/HostStore ops). The step IO's data is laid out
// [transfers, replicas, ...]: the k-th load (or store) of a stream by local
// replica r uses slot k * R + r, wrapping after `transfers` slots per replica.
// Before the replicas start, take() hands out every slot of the step IO in
// slot order (in() / out(), which is the order the step IO expects); each
// replica then reads and writes its own slots through its own cursors
// (replicaIO(r)); finish() completes the outputs in slot order.
#pragma once
#include "popart/stepio.hpp"
#include <cstdint>
#include <map>
#include <memory>
#include <vector>

namespace popart::popx {

class ReplicaHostIO {
public:
  /// Streams read (`loads`) and written (`stores`), with their elements per transfer.
  ReplicaHostIO(std::map<TensorId, int64_t> loads, std::map<TensorId, int64_t> stores, int64_t replicas);
  ~ReplicaHostIO();

  /// Takes transfers x replicas slots of every stream from `io`.
  void take(IStepIO &io, int64_t transfers);
  /// Completes every output slot (outComplete in slot order) and forgets `io`.
  void finish();
  /// The step IO replica `r` reads and writes through (valid between take and finish).
  IStepIO &replicaIO(int64_t r);

private:
  class Cursor;
  std::map<TensorId, int64_t> loads_, stores_;
  int64_t replicas_, transfers_ = 0;
  IStepIO *io_ = nullptr;
  std::map<TensorId, std::vector<ConstVoidData>> in_;     // slot k * R + r
  std::map<TensorId, std::vector<MutableVoidData>> out_;  // slot k * R + r
  std::vector<std::unique_ptr<Cursor>> cursors_;          // one per replica
};

} // namespace popart::popx
