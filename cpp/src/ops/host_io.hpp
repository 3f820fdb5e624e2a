// Explicit host and remote-buffer IO (ai.graphcore 1). On the CPU the "host"
// is the session's IStepIO and a remote buffer is executor-owned memory that
// outlives runs.
//   HostLoad(t)            -> y: y = the next micro-batch of host stream `streamTensorId`
//                             (t only gives the type and shape; usually an Init output)
//   HostStore(x)              : x is returned to the host as anchor `streamTensorId`
//   RemoteLoad(t[, offset]) -> y: y = entry `offset` (default 0) of remote buffer `bufferid`
//   RemoteStore(x[, offset])  : entry `offset` of remote buffer `bufferid` = x
// SessionOptions::useHostCopyOps turns every input stream into Init + HostLoad
// and every anchor into a HostStore (transforms/host_copy_ops.cpp).
#pragma once
#include "popart/op.hpp"

namespace popart {

class HostIoOp : public Op {
public:
  using Op::Op;
  bool hasSideEffect() const override { return true; }
  /// The host stream (input id or anchor id) the op reads or writes.
  const TensorId &streamId() const;
};

class HostLoadOp final : public HostIoOp {
public:
  using HostIoOp::HostIoOp;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override;
};

class HostStoreOp final : public HostIoOp {
public:
  using HostIoOp::HostIoOp;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override;
};

/// The HostStore op (in any graph of `ir`) that writes host stream `id`, or null.
const HostStoreOp *findHostStore(const Ir &ir, const TensorId &id);

class RemoteIoOp : public Op {
public:
  using Op::Op;
  std::unique_ptr<Op> clone() const override { return cloneAs(*this); }
  void setup() override;
  bool hasSideEffect() const override { return true; }
  int64_t bufferId() const;
  static constexpr InIndex offsetInIndex = 1;
};

} // namespace popart
