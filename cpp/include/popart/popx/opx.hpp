// The CPU kernel API (PopART's popx::Opx, ported): an Opx is created per IR op
// at prepareDevice(); grow() runs once, reads shapes, prepares primitives and
// appends the steps that run at every Session::run(). Custom-op libraries use
// exactly this header and OpxCreator.
#pragma once
#include "popart/op.hpp"
#include "popart/opidentifiers.hpp"
#include <functional>
#include <memory>
#include <typeinfo>
#include <vector>
#include "popart/half.hpp"

namespace popart::popx {

class Devicex;  // the executor that owns buffers and sequences (opaque)

/// A typed view of a planned buffer: pointer + type/shape. Cheap to copy;
/// the memory belongs to the session and stays valid while it lives.
class TensorView {
public:
  TensorView() = default;
  TensorView(void *data, const TensorInfo &info) : data_(data), info_(info) {}
  /// Throws popart::error when T does not match the element type.
  template <class T> T *data() const {
    checkType(sizeof(T), typeTag<T>());
    return static_cast<T *>(data_);
  }
  void *raw() const { return data_; }
  const TensorInfo &info() const { return info_; }
  const Shape &shape() const { return info_.shape(); }
  DataType dtype() const { return info_.dataType(); }
  int64_t nelms() const { return info_.nelms(); }
  int64_t nbytes() const { return info_.nbytes(); }
  int64_t rank() const { return info_.rank(); }

private:
  template <class T> static char typeTag();  // 'f' floating, 'i' signed, 'u' unsigned/bool
  void checkType(size_t size, char tag) const;
  void *data_ = nullptr;
  TensorInfo info_;
};

/// The list of steps an Opx appends to; steps run in order at run time.
class Sequence {
public:
  using Step = std::function<void()>;
  void add(Step step) { steps_.push_back(std::move(step)); }
  void add(const Sequence &other) { steps_.insert(steps_.end(), other.steps_.begin(), other.steps_.end()); }
  const std::vector<Step> &steps() const { return steps_; }
  bool empty() const { return steps_.empty(); }
  void run() const {
    for (const auto &s : steps_) s();
  }

private:
  std::vector<Step> steps_;
};

[[noreturn]] void verifyOpFailed(Op *op);

/// Throws popart::error unless `op` is an OP with one of the identifiers.
template <class OP> void verifyOp(Op *op, const std::vector<OperatorIdentifier> &ids) {
  bool known = false;
  for (const auto &id : ids) known = known || op->opid == id;
  if (!known || dynamic_cast<OP *>(op) == nullptr) verifyOpFailed(op);
}
template <class OP> void verifyOp(Op *op, const OperatorIdentifier &id) { verifyOp<OP>(op, std::vector<OperatorIdentifier>{id}); }

class Opx {
public:
  Opx(Op *op, Devicex *devicex) : op_p(op), dv_p(devicex) {}
  virtual ~Opx() = default;

  /// Called once at prepareDevice(); appends the run-time work to `prog`.
  virtual void grow(Sequence &prog) const = 0;

  template <class OP> OP &getOp() const { return dynamic_cast<OP &>(*op_p); }
  /// For constructors, as in PopART: `verifyOp<MyOp>(op, {MyOpId})`.
  template <class OP> static void verifyOp(Op *op, const std::vector<OperatorIdentifier> &ids) {
    popx::verifyOp<OP>(op, ids);
  }
  template <class OP> static void verifyOp(Op *op, const OperatorIdentifier &id) { popx::verifyOp<OP>(op, id); }
  TensorView getInTensor(InIndex i) const;
  /// The planned buffer of output i (write results here).
  TensorView getOutTensor(OutIndex i) const;
  /// Declares that output i holds `t` (a scratch tensor from createTensor):
  /// the executor copies it into the planned output after this Opx's steps.
  void setOutTensor(OutIndex i, const TensorView &t) const;
  /// Scratch memory owned by the session, alive as long as it is.
  TensorView createTensor(const TensorInfo &info) const;
  bool hasInput(InIndex i) const { return op_p->hasInput(i); }
  bool hasOutput(OutIndex i) const { return op_p->hasOutput(i); }
  const TensorInfo &inInfo(InIndex i) const { return op_p->inInfo(i); }
  const TensorInfo &outInfo(OutIndex i) const { return op_p->outInfo(i); }
  const Shape &inShape(InIndex i) const { return op_p->inShape(i); }
  const Shape &outShape(OutIndex i) const { return op_p->outShape(i); }
  std::string debugContext(const std::string &s = "") const { return op_p->debugName() + s; }

  /// Runs f(begin, end) over [0, n) split across the session's threads.
  static void parallelFor(int64_t n, const std::function<void(int64_t, int64_t)> &f,
                          int64_t grain = 4096);

  Op *op_p;
  Devicex *dv_p;
};

using OpxFactoryFunc = std::function<std::unique_ptr<Opx>(Op *, Devicex *)>;

/// Opxs are keyed by domain and type (never version). Registering the same
/// key twice with the same tag (a library loaded twice) is ignored; another tag
/// from another library is logged and makes lowering that op throw an error
/// naming both. `origin` is an address inside the registering library.
class OpxManager {
public:
  static void registerOpx(const OperatorIdentifier &id, OpxFactoryFunc factory, const char *tag,
                          const void *origin = nullptr);
  static std::unique_ptr<Opx> createOpx(Op *op, Devicex *devicex);
  static bool hasOpx(const OperatorIdentifier &id);
};

template <class OPX> class OpxCreator {
public:
  OpxCreator(const OperatorIdentifier &id) : OpxCreator(std::vector<OperatorIdentifier>{id}) {}
  OpxCreator(const std::vector<OperatorIdentifier> &ids) {
    for (const auto &id : ids)
      OpxManager::registerOpx(id, [](Op *op, Devicex *d) { return std::make_unique<OPX>(op, d); },
                              typeid(OPX).name(), &typeid(OPX));
  }
};

template <> inline char TensorView::typeTag<float>() { return 'f'; }
template <> inline char TensorView::typeTag<double>() { return 'f'; }
template <> inline char TensorView::typeTag<int8_t>() { return 'i'; }
template <> inline char TensorView::typeTag<int16_t>() { return 'i'; }
template <> inline char TensorView::typeTag<int32_t>() { return 'i'; }
template <> inline char TensorView::typeTag<int64_t>() { return 'i'; }
template <> inline char TensorView::typeTag<uint8_t>() { return 'u'; }
template <> inline char TensorView::typeTag<uint16_t>() { return 'u'; }
template <> inline char TensorView::typeTag<uint32_t>() { return 'u'; }
template <> inline char TensorView::typeTag<uint64_t>() { return 'u'; }
template <> inline char TensorView::typeTag<bool>() { return 'u'; }
template <> inline char TensorView::typeTag<float16_t>() { return 'h'; }

} // namespace popart::popx
