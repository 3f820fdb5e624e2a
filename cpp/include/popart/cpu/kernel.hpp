// Plain-function kernels: POPART_REGISTER_KERNEL(id, fn) registers an Opx
// whose grow() captures the op's planned buffers once and appends one step
// calling fn(ctx). Kernels are keyed by domain + type, never by version.
#pragma once
#include "popart/opidentifiers.hpp"
#include "popart/popx/opx.hpp"

namespace popart::cpu {

/// A pointer + length over one buffer, typed.
template <class T> class Span {
public:
  Span(T *p, int64_t n) : p_(p), n_(n) {}
  T &operator[](int64_t i) const { return p_[i]; }
  T *data() const { return p_; }
  int64_t size() const { return n_; }
  T *begin() const { return p_; }
  T *end() const { return p_ + n_; }

private:
  T *p_;
  int64_t n_;
};

class KernelContext {
public:
  KernelContext(const Op &op, std::vector<popx::TensorView> ins, std::vector<popx::TensorView> outs)
      : op_(op), ins_(std::move(ins)), outs_(std::move(outs)) {}
  /// Inputs/outputs by index; absent optional inputs have a null view.
  template <class T> Span<const T> in(InIndex i) const { return {ins_.at(i).data<T>(), ins_[i].nelms()}; }
  template <class T> Span<T> out(OutIndex i) const { return {outs_.at(i).data<T>(), outs_[i].nelms()}; }
  const popx::TensorView &inView(InIndex i) const { return ins_.at(i); }
  const popx::TensorView &outView(OutIndex i) const { return outs_.at(i); }
  bool hasInput(InIndex i) const { return i < static_cast<int>(ins_.size()) && ins_[i].raw(); }
  int numInputs() const { return static_cast<int>(ins_.size()); }
  int numOutputs() const { return static_cast<int>(outs_.size()); }
  const TensorInfo &inInfo(InIndex i) const { return ins_.at(i).info(); }
  const TensorInfo &outInfo(OutIndex i) const { return outs_.at(i).info(); }
  const Op &op() const { return op_; }
  template <class OP> const OP &op() const { return dynamic_cast<const OP &>(op_); }

private:
  const Op &op_;
  std::vector<popx::TensorView> ins_, outs_;
};

using KernelFn = void (*)(KernelContext &);

/// Registers `fn` as the kernel of every identifier's domain + type.
void registerKernel(const std::vector<OperatorIdentifier> &ids, KernelFn fn);
inline void registerKernel(const OperatorIdentifier &id, KernelFn fn) { registerKernel(std::vector<OperatorIdentifier>{id}, fn); }

namespace detail {
struct KernelRegistrar {
  template <class Ids> KernelRegistrar(const Ids &ids, KernelFn fn) { registerKernel(toIds(ids), fn); }
  static std::vector<OperatorIdentifier> toIds(const OperatorIdentifier &id) { return {id}; }
  template <class Ids> static std::vector<OperatorIdentifier> toIds(const Ids &ids) { return ids.ids; }
};
} // namespace detail

#define POPART_REGISTER_KERNEL(ID, FN)                                                               \
  static ::popart::cpu::detail::KernelRegistrar POPART_UNIQUE_NAME(popartKernelRegistrar_)(ID, FN)

} // namespace popart::cpu
