// oneDNN computes FLOAT16 tensors in float: an Opx asks for float views of its
// inputs/outputs; FLOAT16 ones become float scratch copies converted by the
// steps toFloat() (before the primitive) and fromFloat() (after).
#pragma once
#include "popart/popx/opx.hpp"
#include <utility>
#include <vector>

namespace popart::cpu {

class FloatStaging {
public:
  /// A float view of input i: the tensor itself when it is FLOAT.
  popx::TensorView in(const popx::Opx &opx, InIndex i);
  popx::TensorView out(const popx::Opx &opx, OutIndex i);
  bool empty() const { return ins_.empty() && outs_.empty(); }
  /// Converts the staged FLOAT16 inputs into their float copies.
  void toFloat() const;
  /// Converts the float copies of FLOAT16 outputs back.
  void fromFloat() const;

private:
  popx::TensorView stage(const popx::Opx &opx, const popx::TensorView &t,
                         std::vector<std::pair<popx::TensorView, popx::TensorView>> &list);
  std::vector<std::pair<popx::TensorView, popx::TensorView>> ins_, outs_;  // (original, float copy)
};

} // namespace popart::cpu
