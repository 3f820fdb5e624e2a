// Base of the optimizers (SGD, Adam, Adaptive). The training issue fills in
// the concrete classes; the IR only needs to copy one.
#pragma once
#include <memory>
#include <string>

namespace popart {

enum class OptimizerType { SGD = 0, Adam, Adaptive, NTYPES };

class Optimizer {
public:
  virtual ~Optimizer() = default;
  virtual OptimizerType type() const = 0;
  virtual std::string type_s() const = 0;
  virtual std::unique_ptr<Optimizer> clone() const = 0;
};

} // namespace popart
