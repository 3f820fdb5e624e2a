// Kernels of the small ai.graphcore ops (see ops/graphcore_misc.cpp): copies (Nop,
// TensorRemap, Reshape, collectives of one replica, CopyVarUpdate), Square and its
// gradient 2 x dy, IncrementMod, fresh tensors and PrintTensor.
// PrintTensor writes to stdout, once per run: "<title>: " then the tensor as nested
// brackets, rows on new lines indented by depth (numpy style). With more than
// summariseThreshold elements (0: never) each axis shows edgeItems entries at either end
// around "...". Floats use `digits` significant digits (floatFormat 0 = auto, %g) or
// decimals (1 = fixed, 2 = scientific); 3 or digits = 0 prints them unpadded with %g.
// Elements are right-aligned to a common width when digits > 0, and a line breaks before
// it would exceed maxLineWidth characters (0: never).
#include "dispatch.hpp"
#include "popart/popx/opx.hpp"
#include "strided_copy.hpp"
#include <cmath>
#include <cstdio>
#include <sstream>

namespace popart::cpu {
namespace {

class CopyOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    popx::TensorView x = getInTensor(op_p->opid.type == "CopyVarUpdate" ? 1 : 0), y = getOutTensor(0);
    prog.add([x, y] { copyBytes(y.raw(), x.raw(), y.nbytes()); });
  }
};

template <class T> void squareRun(const T *x, T *y, int64_t n) {
  popx::Opx::parallelFor(n, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      const compute_t<T> v = x[i];
      y[i] = static_cast<T>(v * v);
    }
  });
}

template <class T> void squareGradRun(const T *dy, const T *x, T *dx, int64_t n) {
  popx::Opx::parallelFor(n, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i)
      dx[i] = static_cast<T>(compute_t<T>(2) * compute_t<T>(x[i]) * compute_t<T>(dy[i]));
  });
}

template <class T> void incrementModRun(const T *x, T *y, int64_t n, double inc, double mod) {
  using C = compute_t<T>;
  const C ci = static_cast<C>(inc), cm = static_cast<C>(mod);
  popx::Opx::parallelFor(n, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      if constexpr (std::is_floating_point_v<C>) y[i] = static_cast<T>(std::fmod(C(x[i]) + ci, cm));
      else y[i] = static_cast<T>((x[i] + ci) % cm);
    }
  });
}

class ArithOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const std::string &type = op_p->opid.type;
    popx::TensorView x = getInTensor(0), y = getOutTensor(0);
    const int64_t n = y.nelms();
    dispatchNumeric(y.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if (type == "Square") {
        prog.add([x, y, n] { squareRun(x.data<T>(), y.data<T>(), n); });
      } else if (type == "SquareGrad") {
        popx::TensorView fx = getInTensor(1);
        prog.add([x, fx, y, n] { squareGradRun(x.data<T>(), fx.data<T>(), y.data<T>(), n); });
      } else {
        const double inc = op_p->attr<Attributes::Float>("increment");
        const double mod = op_p->attr<Attributes::Float>("modulus");
        if (std::is_integral_v<T> && static_cast<int64_t>(mod) == 0)
          throw error("attribute 'modulus' {} is 0 once converted to the integer type {}", mod, toString(y.dtype()));
        prog.add([x, y, n, inc, mod] { incrementModRun(x.data<T>(), y.data<T>(), n, inc, mod); });
      }
    });
  }
};

class FreshOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    if (op_p->opid.type == "Init" && op_p->attr<Attributes::Int>("init_type") == 0) return;  // undefined contents
    popx::TensorView y = getOutTensor(0);
    prog.add([y] { zeroBytes(y.raw(), y.nbytes()); });
  }
};

struct PrintFormat {
  std::string title, sep, open, close;
  int64_t threshold, edge, width, digits, floatFormat;

  template <class T> std::string element(T v) const {
    char buf[64];
    if constexpr (std::is_same_v<T, bool>) {
      return v ? "true" : "false";
    } else if constexpr (std::is_integral_v<T>) {
      std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
    } else {
      const double d = static_cast<double>(static_cast<compute_t<T>>(v));
      const int p = static_cast<int>(digits);
      if (digits == 0 || floatFormat == 3) std::snprintf(buf, sizeof buf, "%g", d);
      else if (floatFormat == 1) std::snprintf(buf, sizeof buf, "%.*f", p, d);
      else if (floatFormat == 2) std::snprintf(buf, sizeof buf, "%.*e", p, d);
      else std::snprintf(buf, sizeof buf, "%.*g", p, d);
    }
    return buf;
  }
};

class TensorPrinter {
public:
  TensorPrinter(const PrintFormat &f, const Shape &shape, bool summarise)
      : f_(f), shape_(shape), strides_(rowMajorStrides(shape)), summarise_(summarise) {}

  template <class T> std::string print(const T *x) {
    std::vector<std::string> items;
    size_t w = 0;
    collect(x, 0, 0, items);
    if (f_.digits > 0 && f_.floatFormat != 3)
      for (const auto &s : items) w = std::max(w, s.size());
    for (auto &s : items) s.insert(0, w - std::min(w, s.size()), ' ');
    out_.str("");
    line_ = f_.title.size() + 2;
    out_ << f_.title << ": ";
    next_ = 0;
    emit(items, 0);
    return out_.str();
  }

private:
  /// Indices shown along axis `d` (all, or the edges with -1 marking the ellipsis).
  std::vector<int64_t> shown(size_t d) const {
    std::vector<int64_t> v;
    const int64_t n = shape_[d];
    if (!summarise_ || n <= 2 * f_.edge) {
      for (int64_t i = 0; i < n; ++i) v.push_back(i);
      return v;
    }
    for (int64_t i = 0; i < f_.edge; ++i) v.push_back(i);
    v.push_back(-1);
    for (int64_t i = n - f_.edge; i < n; ++i) v.push_back(i);
    return v;
  }

  template <class T> void collect(const T *x, size_t d, int64_t off, std::vector<std::string> &items) const {
    if (d == shape_.size()) {
      items.push_back(f_.element(x[off]));
      return;
    }
    for (int64_t i : shown(d))
      if (i >= 0) collect(x, d + 1, off + i * strides_[d], items);
  }

  void put(const std::string &s, size_t depth) {
    if (f_.width > 0 && line_ + s.size() > static_cast<size_t>(f_.width) && line_ > depth + 1) {
      out_ << "\n" << std::string(depth + 1, ' ');
      line_ = depth + 1;
    }
    out_ << s;
    line_ += s.size();
  }

  void emit(const std::vector<std::string> &items, size_t d) {
    if (d == shape_.size()) {
      put(items[next_++], d);
      return;
    }
    out_ << f_.open;
    line_ += f_.open.size();
    bool first = true;
    for (int64_t i : shown(d)) {
      if (!first) {
        if (d + 1 == shape_.size()) {
          out_ << f_.sep;
          line_ += f_.sep.size();
        } else {
          out_ << "\n" << std::string(d + 1, ' ');
          line_ = d + 1;
        }
      }
      first = false;
      if (i < 0) put("...", d);
      else emit(items, d + 1);
    }
    out_ << f_.close;
    line_ += f_.close.size();
  }

  const PrintFormat &f_;
  Shape shape_;
  std::vector<int64_t> strides_;
  bool summarise_;
  std::ostringstream out_;
  size_t line_ = 0, next_ = 0;
};

class PrintTensorOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const Op &op = *op_p;
    auto f = std::make_shared<PrintFormat>(PrintFormat{
        op.attr<Attributes::String>("title", op.inId(0)), op.attr<Attributes::String>("separator", " "),
        op.attr<Attributes::String>("openBracket", "["), op.attr<Attributes::String>("closeBracket", "]"),
        op.attr<Attributes::Int>("summariseThreshold", 1000), op.attr<Attributes::Int>("edgeItems", 3),
        op.attr<Attributes::Int>("maxLineWidth", 75), op.attr<Attributes::Int>("digits", 8),
        op.attr<Attributes::Int>("floatFormat", 0)});
    if (f->title.empty()) f->title = op.inId(0);
    popx::TensorView x = getInTensor(0), y = getOutTensor(0);
    const bool summarise = f->threshold > 0 && x.nelms() > f->threshold;
    auto printer = std::make_shared<TensorPrinter>(*f, x.shape(), summarise);
    const bool printSelf = op.attr<Attributes::Int>("print_self", 1) != 0;
    dispatchAll(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      prog.add([f, printer, x, y, printSelf] {
        if (printSelf) {
          const std::string s = printer->print(static_cast<const T *>(x.raw()));
          std::fwrite(s.data(), 1, s.size(), stdout);
          std::fputc('\n', stdout);
          std::fflush(stdout);
        }
        copyBytes(y.raw(), x.raw(), y.nbytes());
      });
    });
  }
};

} // namespace
static popx::OpxCreator<CopyOpx> POPART_UNIQUE_NAME(gcCopyOpxCreator_)(std::vector<OperatorIdentifier>{
    graphcoreOp("Nop"), graphcoreOp("TensorRemap"), graphcoreOp("Reshape"), graphcoreOp("CopyVarUpdate"),
    graphcoreOp("AutoLossScaleProxy")});
static popx::OpxCreator<ArithOpx> POPART_UNIQUE_NAME(gcArithOpxCreator_)(std::vector<OperatorIdentifier>{
    graphcoreOp("Square"), internalOp("SquareGrad"), graphcoreOp("IncrementMod")});
static popx::OpxCreator<FreshOpx> POPART_UNIQUE_NAME(gcFreshOpxCreator_)(std::vector<OperatorIdentifier>{
    graphcoreOp("Zeros"), graphcoreOp("ZerosLike"), graphcoreOp("Init"), graphcoreOp("UnaryZeroGrad")});
static popx::OpxCreator<PrintTensorOpx> POPART_UNIQUE_NAME(gcPrintOpxCreator_)(std::vector<OperatorIdentifier>{
    graphcoreOp("PrintTensor"), internalOp("PrintTensorGrad")});
} // namespace popart::cpu
