// ai.onnx.preview.training Adagrad / Adam / Momentum (formulas in ops/preview_training.cpp): per variable,
// one parallel element-wise loop in double; R and T are read at each run. Outputs the node leaves out
// are skipped.
#include "dispatch.hpp"
#include "ops/preview_training.hpp"
#include "popart/popx/opx.hpp"
#include <cmath>
#include <vector>

namespace popart::cpu {
namespace {

struct TrainingCoefficients {
  double alpha, beta, epsilon, norm, normPost, decay;
  bool nesterov;
};

/// Per-run scalars of one update.
struct TrainingStep {
  double rate;       // the adjusted learning rate
  double gradScale;  // Momentum's beta, or 1 at T = 0
};

TrainingStep trainingStep(const std::string &type, const TrainingCoefficients &c, double r, int64_t t) {
  if (type == "Adagrad") return {r / (1.0 + static_cast<double>(t) * c.decay), 1.0};
  if (type == "Adam") {
    if (t <= 0) return {r, 1.0};
    const double td = static_cast<double>(t);
    return {r * std::sqrt(1.0 - std::pow(c.beta, td)) / (1.0 - std::pow(c.alpha, td)), 1.0};
  }
  return {r, t > 0 ? c.beta : 1.0};
}

/// The tensors of one variable: inputs x, g, s1 (, s2) and outputs x', s1' (, s2'), null when absent.
template <class T> struct TrainingVariable {
  const T *x, *g, *s1, *s2;
  T *xNew, *s1New, *s2New;
  int64_t n;
};

template <class T>
void trainingUpdate(const std::string &type, const TrainingVariable<T> &v, const TrainingCoefficients &c,
                    const TrainingStep &step) {
  const int kind = type == "Adagrad" ? 0 : type == "Adam" ? 1 : 2;
  popx::Opx::parallelFor(v.n, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      const double x = static_cast<double>(v.x[i]), g = c.norm * x + static_cast<double>(v.g[i]);
      double xn, s1, s2 = 0;
      if (kind == 0) {
        s1 = static_cast<double>(v.s1[i]) + g * g;
        xn = x - step.rate * g / (std::sqrt(s1) + c.epsilon);
      } else if (kind == 1) {
        s1 = c.alpha * static_cast<double>(v.s1[i]) + (1 - c.alpha) * g;
        s2 = c.beta * static_cast<double>(v.s2[i]) + (1 - c.beta) * g * g;
        xn = (1 - c.normPost) * (x - step.rate * s1 / (std::sqrt(s2) + c.epsilon));
      } else {
        s1 = c.alpha * static_cast<double>(v.s1[i]) + step.gradScale * g;
        xn = x - step.rate * (c.nesterov ? g + c.alpha * s1 : s1);
      }
      if (v.xNew) v.xNew[i] = static_cast<T>(xn);
      if (v.s1New) v.s1New[i] = static_cast<T>(s1);
      if (v.s2New) v.s2New[i] = static_cast<T>(s2);
    }
  }, 16384);
}

class PreviewTrainingOpx final : public popx::Opx {
public:
  using Opx::Opx;
  void grow(popx::Sequence &prog) const override {
    const std::string type = op_p->opid.type;
    const int group = previewTrainingGroup(type), n = (op_p->input->maxIndex() - 2) / group;
    auto f = [&](const char *name, float dflt) {
      return static_cast<double>(op_p->attr<Attributes::Float>(name, dflt));
    };
    const TrainingCoefficients c{f("alpha", 0.9f), f("beta", type == "Adam" ? 0.999f : 0.0f), f("epsilon", 1e-6f),
                                 f("norm_coefficient", 0.0f), f("norm_coefficient_post", 0.0f),
                                 f("decay_factor", 0.0f), op_p->attr<Attributes::String>("mode", "") == "nesterov"};
    popx::TensorView r = getInTensor(0), t = getInTensor(1);
    dispatchFloat(inInfo(2).dataType(), [&](auto tag) {
      using T = decltype(tag);
      auto vars = std::make_shared<std::vector<TrainingVariable<T>>>();
      for (int i = 0; i < n; ++i) {
        auto out = [&](int k) {
          return hasOutput(k * n + i) ? getOutTensor(k * n + i).template data<T>() : nullptr;
        };
        const T *s2 = group == 4 ? getInTensor(2 + 3 * n + i).template data<T>() : nullptr;
        vars->push_back({getInTensor(2 + i).template data<T>(), getInTensor(2 + n + i).template data<T>(),
                         getInTensor(2 + 2 * n + i).template data<T>(), s2, out(0), out(1),
                         group == 4 ? out(2) : nullptr, inInfo(2 + i).nelms()});
      }
      prog.add([=] {
        const double rate = r.dtype() == DataType::DOUBLE ? r.data<double>()[0] : r.data<float>()[0];
        const TrainingStep step = trainingStep(type, c, rate, t.data<int64_t>()[0]);
        for (const auto &v : *vars) trainingUpdate(type, v, c, step);
      });
    });
  }
};

} // namespace
static popx::OpxCreator<PreviewTrainingOpx> previewTrainingOpxCreator(std::vector<OperatorIdentifier>{
    previewTrainingOp("Adagrad"), previewTrainingOp("Adam"), previewTrainingOp("Momentum")});
} // namespace popart::cpu
