// Shared machinery of the BinaryFnOp kernels (logic.cpp, binary_math.cpp): the
// broadcast plan is made once at grow(); a functor f (templated on the compute
// type) becomes one step z = f(a, b) over the broadcast output.
#pragma once
#include "broadcast.hpp"
#include "dispatch.hpp"
#include "ops/binary_fn.hpp"
#include "popart/popx/opx.hpp"

namespace popart::cpu {

using BinaryStep = popx::Sequence::Step;

/// z = f(a, b) for inputs of type T and output TO; f works in compute_t<T>.
template <class T, class TO, class F>
BinaryStep binaryStep(const BroadcastPlan &p, const popx::TensorView &a, const popx::TensorView &b,
                      const popx::TensorView &o, F f) {
  const T *pa = a.data<T>(), *pb = b.data<T>();
  TO *po = o.data<TO>();
  return [=] {
    using C = compute_t<T>;
    runBroadcast(p, pa, pb, po, [f](T x, T y) { return TO(static_cast<compute_t<TO>>(f(C(x), C(y)))); });
  };
}

/// binaryStep with the output type equal to the input type, for every numeric type.
template <class F>
BinaryStep sameTypeStep(const BroadcastPlan &p, const popx::TensorView &a, const popx::TensorView &b,
                        const popx::TensorView &o, F f) {
  return dispatchNumeric(a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    return binaryStep<T, T>(p, a, b, o, f);
  });
}

struct BinaryTensors {
  const BroadcastPlan &plan;
  popx::TensorView a, b, o;
};
using BinaryStepFactory = BinaryStep (*)(const BinaryFnOp &, const BinaryTensors &, const popx::Opx &);

template <BinaryStepFactory Make> class BinaryFnOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const auto &op = getOp<BinaryFnOp>();
    BroadcastPlan plan = makeBroadcastPlan(op.broadcastShape(0), op.broadcastShape(1), outShape(0));
    prog.add(Make(op, BinaryTensors{plan, getInTensor(0), getInTensor(1), getOutTensor(0)}, *this));
  }
};

} // namespace popart::cpu
