// Dynamic region kernels (DynamicSlice/Update/Add/Zero and their gradients). The
// region R is walked as rows of its last dimension; the row start offsets in T
// are computed once at grow() and shifted at run time by sum_k o_k * stride(axis_k),
// o_k clamped to [0, dim_k - size_k]. Rows are memcpy'd / memset / added in parallel.
#include "dispatch.hpp"
#include "ops/graphcore_dynamic.hpp"
#include "ops/shape_util.hpp"
#include "popart/popx/opx.hpp"
#include "strided_copy.hpp"
#include <algorithm>
#include <cstring>

namespace popart::cpu {
namespace {

struct RegionPlan {
  std::vector<int64_t> rowOffsets;  // element offset in T of each row of R (zero base)
  std::vector<int64_t> axisStrides, axisLimits;  // per offset entry: stride in T, dim - size
  int64_t rowLen = 0, elem = 0;

  RegionPlan(const DynamicBaseOp &op, int64_t elemBytes) : elem(elemBytes) {
    const Shape &whole = op.wholeShape();
    const Shape region = op.regionShape();
    const std::vector<int64_t> strides = rowMajorStrides(whole);
    for (size_t i = 0; i < op.axes().size(); ++i) {
      axisStrides.push_back(strides[op.axes()[i]]);
      axisLimits.push_back(whole[op.axes()[i]] - op.sizes()[i]);
    }
    if (region.empty()) {
      rowLen = 1;
      rowOffsets.push_back(0);
      return;
    }
    rowLen = region.back();
    const int64_t rows = rowLen == 0 ? 0 : shapeutil::product(region, 0, region.size() - 1);
    rowOffsets.resize(static_cast<size_t>(rows));
    for (int64_t r = 0; r < rows; ++r) {
      int64_t rest = r, off = 0;
      for (int64_t a = static_cast<int64_t>(region.size()) - 2; a >= 0; --a) {
        off += rest % region[a] * strides[a];
        rest /= region[a];
      }
      rowOffsets[r] = off;
    }
  }

  template <class I> int64_t base(const I *offsets) const {
    int64_t b = 0;
    for (size_t k = 0; k < axisStrides.size(); ++k)
      b += std::clamp<int64_t>(static_cast<int64_t>(offsets[k]), 0, axisLimits[k]) * axisStrides[k];
    return b;
  }

  int64_t grain() const { return std::max<int64_t>(1, 16384 / std::max<int64_t>(1, rowLen)); }

  /// f(row index, pointer to the row in T (bytes)) over every row, in parallel.
  template <class F> void forRows(char *t, int64_t base, F &&f) const {
    popx::Opx::parallelFor(static_cast<int64_t>(rowOffsets.size()), [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) f(r, t + (base + rowOffsets[r]) * elem);
    }, grain());
  }
};

template <class T> void addRows(const RegionPlan &p, char *t, int64_t base, const T *s) {
  p.forRows(t, base, [&](int64_t r, char *row) {
    T *d = reinterpret_cast<T *>(row);
    const T *sr = s + r * p.rowLen;
    for (int64_t j = 0; j < p.rowLen; ++j) d[j] = static_cast<T>(compute_t<T>(d[j]) + compute_t<T>(sr[j]));
  });
}

class DynamicOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const auto &op = getOp<DynamicBaseOp>();
    popx::TensorView in = getInTensor(0), off = getInTensor(1), y = getOutTensor(0);
    popx::TensorView s = op.mode() == DynamicMode::Update || op.mode() == DynamicMode::Add ? getInTensor(2) : in;
    auto plan = std::make_shared<RegionPlan>(op, dataTypeSize(y.dtype()));
    const DynamicMode mode = op.mode();
    const DataType offType = off.dtype();
    prog.add([plan, mode, offType, in, off, s, y] {
      int64_t base = 0;
      if (offType == DataType::INT64) base = plan->base(static_cast<const int64_t *>(off.raw()));
      else if (offType == DataType::UINT32) base = plan->base(static_cast<const uint32_t *>(off.raw()));
      else base = plan->base(static_cast<const int32_t *>(off.raw()));
      run(*plan, mode, base, in, s, y);
    });
  }

private:
  static void run(const RegionPlan &p, DynamicMode mode, int64_t base, const popx::TensorView &in,
                  const popx::TensorView &s, const popx::TensorView &y) {
    const size_t rowBytes = static_cast<size_t>(p.rowLen * p.elem);
    char *yb = static_cast<char *>(y.raw());
    switch (mode) {
    case DynamicMode::Slice:
      p.forRows(static_cast<char *>(in.raw()), base,
                [&](int64_t r, char *row) { std::memcpy(yb + r * rowBytes, row, rowBytes); });
      return;
    case DynamicMode::Pad: zeroBytes(yb, y.nbytes()); break;
    default: copyBytes(yb, in.raw(), y.nbytes()); break;
    }
    const char *sb = static_cast<const char *>(s.raw());
    if (mode == DynamicMode::Zero)
      p.forRows(yb, base, [&](int64_t, char *row) { std::memset(row, 0, rowBytes); });
    else if (mode == DynamicMode::Add)
      dispatchNumeric(y.dtype(), [&](auto tag) { addRows(p, yb, base, reinterpret_cast<const decltype(tag) *>(sb)); });
    else
      p.forRows(yb, base, [&](int64_t r, char *row) { std::memcpy(row, sb + r * rowBytes, rowBytes); });
  }
};

} // namespace
static popx::OpxCreator<DynamicOpx> POPART_UNIQUE_NAME(dynamicOpxCreator_)(std::vector<OperatorIdentifier>{
    graphcoreOp("DynamicSlice"), graphcoreOp("DynamicUpdate"), graphcoreOp("DynamicAdd"), graphcoreOp("DynamicZero"),
    internalOp("DynamicSliceGrad"), internalOp("DynamicZeroGrad"), internalOp("DynamicUpdaterGrad")});
} // namespace popart::cpu
