// Reverse / Subsample / Slice-1: one strided copy y[i] = x[b + i * s] (negative strides for
// reversed dims); their gradients zero dx (unless every element is written) and copy dy back through
// the same strides. SequenceSlice: row-block memcpy per entry after copying (or
// zeroing) the destination; its gradient adds row blocks back into a zeroed dSource.
// NormalizeImage: per pixel (x * scale - o_c) * s_c, pad 0.
#include "dispatch.hpp"
#include "ops/graphcore_layout.hpp"
#include "popart/popx/opx.hpp"
#include "strided_copy.hpp"
#include <algorithm>
#include <array>
#include <memory>

namespace popart::cpu {
namespace {

/// Element strides and offset of x[b + i * s] for x of shape `whole`.
std::pair<std::vector<int64_t>, int64_t> stridedLayout(const Shape &whole, const std::vector<int64_t> &begins,
                                                       const std::vector<int64_t> &steps) {
  std::vector<int64_t> strides = rowMajorStrides(whole);
  int64_t offset = 0;
  for (size_t k = 0; k < strides.size(); ++k) {
    offset += begins[k] * strides[k];
    strides[k] *= steps[k];
  }
  return {strides, offset};
}

class StridedViewOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    popx::TensorView x = getInTensor(0), y = getOutTensor(0);
    const int64_t elem = dataTypeSize(y.dtype());
    if (auto *fwd = dynamic_cast<StridedViewOp *>(op_p)) {
      auto [strides, offset] = stridedLayout(x.shape(), fwd->begins(), fwd->steps());
      auto copy = std::make_shared<StridedCopy>(y.shape(), strides, rowMajorStrides(y.shape()), offset, 0, elem);
      prog.add([x, y, copy] { copy->run(x.raw(), y.raw()); });
      return;
    }
    const auto &grad = getOp<StridedViewGradOp>();
    auto [strides, offset] = stridedLayout(y.shape(), grad.begins(), grad.steps());
    auto copy = std::make_shared<StridedCopy>(x.shape(), rowMajorStrides(x.shape()), strides, 0, offset, elem);
    const bool zero = x.nelms() != y.nelms();
    prog.add([x, y, copy, zero] {
      if (zero) zeroBytes(y.raw(), y.nbytes());
      copy->run(x.raw(), y.raw());
    });
  }
};

/// SequenceSlice's entries (N, sourceOffset, destinationOffset), staged as int64 into
/// buffers made at grow() (the three inputs may differ in type) and checked.
class SeqSliceEntries {
public:
  SeqSliceEntries(const popx::TensorView &n, const popx::TensorView &src, const popx::TensorView &dst,
                  int64_t srcRows, int64_t dstRows)
      : ins_{n, src, dst}, srcRows_(srcRows), dstRows_(dstRows) {
    for (auto &v : v_) v.resize(static_cast<size_t>(n.nelms()));
  }
  /// Reads and checks the entries; returns how many are used (up to the first N = 0).
  int64_t load() {
    for (int k = 0; k < 3; ++k) stage(ins_[k], v_[k]);
    int64_t j = 0;
    for (; j < static_cast<int64_t>(v_[0].size()) && v_[0][j] != 0; ++j) {
      const int64_t len = v_[0][j], s = v_[1][j], d = v_[2][j];
      if (len < 0 || s < 0 || d < 0 || s + len > srcRows_ || d + len > dstRows_)
        throw error("entry {}: N {} with sourceOffset {} and destinationOffset {} leaves source rows [0, {}) or "
                    "destination rows [0, {})", j, len, s, d, srcRows_, dstRows_);
    }
    return j;
  }
  int64_t n(int64_t j) const { return v_[0][j]; }
  int64_t src(int64_t j) const { return v_[1][j]; }
  int64_t dst(int64_t j) const { return v_[2][j]; }

private:
  static void stage(const popx::TensorView &t, std::vector<int64_t> &out) {
    for (int64_t i = 0; i < t.nelms(); ++i) {
      if (t.dtype() == DataType::INT64) out[i] = static_cast<const int64_t *>(t.raw())[i];
      else if (t.dtype() == DataType::UINT32) out[i] = static_cast<const uint32_t *>(t.raw())[i];
      else out[i] = static_cast<const int32_t *>(t.raw())[i];
    }
  }
  popx::TensorView ins_[3];
  std::array<std::vector<int64_t>, 3> v_;
  int64_t srcRows_, dstRows_;
};

class SequenceSliceOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    popx::TensorView src = getInTensor(0), dst = getInTensor(1), y = getOutTensor(0);
    auto e = std::make_shared<SeqSliceEntries>(getInTensor(2), getInTensor(3), getInTensor(4), src.shape()[0],
                                               dst.shape()[0]);
    const bool zeroUnused = op_p->attr<Attributes::Int>("zeroUnused", 0) != 0;
    const int64_t row = y.shape()[0] ? y.nbytes() / y.shape()[0] : 0;
    prog.add([=] {
      const int64_t used = e->load();
      char *out = static_cast<char *>(y.raw());
      if (zeroUnused) zeroBytes(out, y.nbytes());
      else copyBytes(out, dst.raw(), y.nbytes());
      for (int64_t j = 0; j < used; ++j)
        copyBytes(out + e->dst(j) * row, static_cast<const char *>(src.raw()) + e->src(j) * row, e->n(j) * row);
    });
  }
};

/// dSource rows [s, s + n) += dY rows [d, d + n); dDestination = dY (zeros with zeroUnused)
/// with the written rows zeroed.
class SequenceSliceGradOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    popx::TensorView dy = getInTensor(0), dsrc = getOutTensor(0), ddst = getOutTensor(1);
    auto e = std::make_shared<SeqSliceEntries>(getInTensor(1), getInTensor(2), getInTensor(3), dsrc.shape()[0],
                                               dy.shape()[0]);
    const bool zeroUnused = op_p->attr<Attributes::Int>("zeroUnused", 0) != 0;
    const int64_t row = dy.shape()[0] ? dy.nelms() / dy.shape()[0] : 0;
    dispatchFloat(dy.dtype(), [&](auto tag) {
      using T = decltype(tag);
      prog.add([=] {
        const int64_t used = e->load();
        const T *g = dy.data<T>();
        T *gs = dsrc.data<T>(), *gd = ddst.data<T>();
        zeroBytes(gs, dsrc.nbytes());
        if (zeroUnused) zeroBytes(gd, ddst.nbytes());
        else copyBytes(gd, g, ddst.nbytes());
        for (int64_t j = 0; j < used; ++j) {
          T *to = gs + e->src(j) * row;
          const T *from = g + e->dst(j) * row;
          for (int64_t i = 0; i < e->n(j) * row; ++i)
            to[i] = static_cast<T>(compute_t<T>(to[i]) + compute_t<T>(from[i]));
          zeroBytes(gd + e->dst(j) * row, e->n(j) * row * static_cast<int64_t>(sizeof(T)));
        }
      });
    });
  }
};

template <class In, class T> void normalizeImage(const In *x, const T *o, const T *s, T *y, int64_t pixels,
                                                 float scale) {
  const float off[3] = {float(o[0]), float(o[1]), float(o[2])}, sc[3] = {float(s[0]), float(s[1]), float(s[2])};
  popx::Opx::parallelFor(pixels, [&](int64_t b, int64_t e) {
    for (int64_t p = b; p < e; ++p) {
      for (int c = 0; c < 3; ++c)
        y[p * 4 + c] = static_cast<T>((static_cast<float>(x[p * 3 + c]) * scale - off[c]) * sc[c]);
      y[p * 4 + 3] = static_cast<T>(0.0f);
    }
  });
}

class NormalizeImageOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    popx::TensorView x = getInTensor(0), o = getInTensor(1), s = getInTensor(2), y = getOutTensor(0);
    const float scale = op_p->attr<Attributes::Float>("scale", 1.0f);
    const int64_t pixels = y.nelms() / 4;
    dispatchFloat(y.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if (x.dtype() == DataType::UINT8)
        prog.add([=] { normalizeImage(x.data<uint8_t>(), o.data<T>(), s.data<T>(), y.data<T>(), pixels, scale); });
      else
        prog.add([=] { normalizeImage(x.data<T>(), o.data<T>(), s.data<T>(), y.data<T>(), pixels, scale); });
    });
  }
};

} // namespace
static popx::OpxCreator<StridedViewOpx> POPART_UNIQUE_NAME(stridedViewOpxCreator_)(std::vector<OperatorIdentifier>{
    graphcoreOp("Reverse"), graphcoreOp("Subsample"), graphcoreOp("Slice"), internalOp("ReverseGrad"),
    internalOp("SubsampleGrad"), internalOp("GraphcoreSliceGrad")});
static popx::OpxCreator<SequenceSliceOpx> POPART_UNIQUE_NAME(sequenceSliceOpxCreator_)(graphcoreOp("SequenceSlice"));
static popx::OpxCreator<SequenceSliceGradOpx> POPART_UNIQUE_NAME(sequenceSliceGradOpxCreator_)(
    internalOp("SequenceSliceGrad"));
static popx::OpxCreator<NormalizeImageOpx> POPART_UNIQUE_NAME(normalizeImageOpxCreator_)(graphcoreOp("NormalizeImage"));
} // namespace popart::cpu
