// Dropout / ShapedDropout forward and gradient. Element j keeps its value when
// u(key, mask index of j) >= ratio and is scaled by 1 / (1 - ratio); the key
// comes from the op's RandomStream (seed, seedName, micro-batch counter), so
// the gradient kernel, drawing the same key, regenerates the forward's mask.
// Inactive Dropout (inference) is a view: only the optional mask is written.
#include "dispatch.hpp"
#include "ops/dropout.hpp"
#include "cpu/devicex.hpp"
#include "popart/popx/opx.hpp"
#include "random_bits.hpp"
#include <algorithm>
#include <cstring>
#include <memory>

namespace popart::cpu {
namespace {

/// Maps flat output indices to flat mask indices (mask broadcast to the output).
struct MaskIndex {
  MaskIndex(const Shape &mask, const Shape &out) : out_(out), stride_(out.size(), 0) {
    int64_t s = 1;
    const size_t pad = out.size() - mask.size();
    for (size_t d = out.size(); d-- > pad;) {
      if (mask[d - pad] != 1) stride_[d] = s;
      s *= mask[d - pad];
    }
    same_ = mask == out;
  }
  int64_t operator()(int64_t j) const {
    if (same_) return j;
    int64_t m = 0;
    for (size_t d = out_.size(); d-- > 0;) {
      m += (j % out_[d]) * stride_[d];
      j /= out_[d];
    }
    return m;
  }
  Shape out_;
  std::vector<int64_t> stride_;
  bool same_ = true;
};

/// y[j] = x[j] * keep(j) / (1 - ratio); also the mask when `mask` is set.
template <class T, class M>
void applyMask(const T *x, T *y, M *mask, int64_t n, uint64_t key, float ratio, const MaskIndex &index) {
  using C = compute_t<T>;
  const C scale = C(1) / (C(1) - C(ratio));
  popx::Opx::parallelFor(n, [&](int64_t b, int64_t e) {
    for (int64_t j = b; j < e; ++j) {
      const bool keep = randomUniform01(key, static_cast<uint64_t>(index(j))) >= ratio;
      y[j] = keep ? T(C(x[j]) * scale) : T(0.0f);
      if (mask) mask[j] = M(keep ? 1.0f : 0.0f);
    }
  });
}

class DropoutOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const auto &op = getOp<DropoutOp>();
    auto x = getInTensor(0), y = getOutTensor(0);
    popx::TensorView mask = hasOutput(1) ? getOutTensor(1) : popx::TensorView();
    if (!op.active()) return growInactive(prog, x, y, mask);
    auto stream = std::make_shared<RandomStream>(dv_p->randomState(), randomOpKey(op.seedName()));
    auto index = std::make_shared<MaskIndex>(op.maskShape(), op.inShape(0));
    const float ratio = op.ratio();
    dispatchFloat(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      prog.add([=] {
        const uint64_t key = stream->nextKey();
        if (!mask.raw()) return applyMask<T, bool>(x.data<T>(), y.data<T>(), nullptr, x.nelms(), key, ratio, *index);
        dispatchAll(mask.dtype(), [&](auto mtag) {
          using M = decltype(mtag);
          applyMask<T, M>(x.data<T>(), y.data<T>(), mask.data<M>(), x.nelms(), key, ratio, *index);
        });
      });
    });
  }

private:
  static void growInactive(popx::Sequence &prog, popx::TensorView x, popx::TensorView y, popx::TensorView mask) {
    if (x.raw() != y.raw())
      prog.add([x, y] { std::memcpy(y.raw(), x.raw(), static_cast<size_t>(x.nbytes())); });
    if (!mask.raw()) return;
    prog.add([mask] {
      dispatchAll(mask.dtype(), [&](auto tag) {
        using T = decltype(tag);
        std::fill_n(static_cast<T *>(mask.raw()), mask.nelms(), T(1.0f));
      });
    });
  }
};

class DropoutGradOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const auto &op = getOp<DropoutGradOp>();
    auto dy = getInTensor(0), dx = getOutTensor(0);
    auto stream = std::make_shared<RandomStream>(dv_p->randomState(), randomOpKey(op.seedName()));
    auto index = std::make_shared<MaskIndex>(op.maskShape(), op.outShape(0));
    const float ratio = op.ratio();
    dispatchFloat(dy.dtype(), [&](auto tag) {
      using T = decltype(tag);
      prog.add([=] {
        applyMask<T, bool>(dy.data<T>(), dx.data<T>(), nullptr, dy.nelms(), stream->nextKey(), ratio, *index);
      });
    });
  }
};

} // namespace
static popx::OpxCreator<DropoutOpx> dropoutOpxCreator(
    std::vector<OperatorIdentifier>{onnxOp("Dropout"), graphcoreOp("ShapedDropout")});
static popx::OpxCreator<DropoutGradOpx> dropoutGradOpxCreator(internalOp("DropoutGrad"));
} // namespace popart::cpu
