// Gather by per-axis index tables, shared by Pad and nearest-mode Resize:
// y[o_0, .., o_n-1] = x[t_0[o_0], .., t_n-1[o_n-1]], or `fill` when any t_k is -1.
// Rows along the last axis: one table walk per row, the longest unit-step run memcpy'd.
#pragma once
#include "ops/shape_util.hpp"
#include "popart/popx/opx.hpp"
#include "strided_copy.hpp"
#include <algorithm>
#include <cstring>

namespace popart::cpu {

class TableGather {
public:
  /// tables[k][o] is the input index along axis k of output index o, or -1.
  TableGather(const Shape &in, std::vector<std::vector<int64_t>> tables)
      : tables_(std::move(tables)), inStrides_(rowMajorStrides(in)) {
    for (const auto &t : tables_) out_.push_back(static_cast<int64_t>(t.size()));
    if (out_.empty()) return;
    rows_ = shapeutil::product(out_, 0, out_.size() - 1);
    const auto &last = tables_.back();
    for (int64_t j = 0, n = out_.back(); j < n;) {  // longest run with t[j+1] = t[j] + 1
      int64_t e = j + 1;
      while (last[j] >= 0 && e < n && last[e] == last[e - 1] + 1) ++e;
      if (last[j] >= 0 && e - j > runEnd_ - runBegin_) runBegin_ = j, runEnd_ = e;
      j = e;
    }
  }

  template <class U> void run(const U *x, U *y, U fill) const {
    if (out_.empty()) {
      y[0] = x[0];
      return;
    }
    const int64_t rowLen = out_.back();
    popx::Opx::parallelFor(rows_, [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) row(x, y + r * rowLen, r, fill);
    }, std::max<int64_t>(1, 4096 / std::max<int64_t>(1, rowLen)));
  }

private:
  template <class U> void row(const U *x, U *yr, int64_t r, U fill) const {
    const int64_t rowLen = out_.back();
    int64_t off = 0;
    for (int64_t a = static_cast<int64_t>(out_.size()) - 2; a >= 0; --a) {
      const int64_t s = tables_[a][r % out_[a]];
      r /= out_[a];
      if (s < 0) {
        std::fill(yr, yr + rowLen, fill);
        return;
      }
      off += s * inStrides_[a];
    }
    const U *xr = x + off;
    const auto &last = tables_.back();
    for (int64_t j = 0; j < runBegin_; ++j) yr[j] = last[j] < 0 ? fill : xr[last[j]];
    if (runEnd_ > runBegin_)
      std::memcpy(yr + runBegin_, xr + last[runBegin_], static_cast<size_t>(runEnd_ - runBegin_) * sizeof(U));
    for (int64_t j = runEnd_; j < rowLen; ++j) yr[j] = last[j] < 0 ? fill : xr[last[j]];
  }

  std::vector<std::vector<int64_t>> tables_;
  std::vector<int64_t> inStrides_;
  Shape out_;
  int64_t rows_ = 1, runBegin_ = 0, runEnd_ = 0;
};

} // namespace popart::cpu
