// Update algorithms of the OptimizerVarUpdate kernel, registered by name
// ("SGD", "Adam", ...) from one file each.
#pragma once
#include "popart/popx/opx.hpp"
#include <map>
#include <string>

namespace popart::cpu {

struct VarUpdateArgs {
  popx::TensorView w, g;
  const float *hyper;                    // [gradScale, algorithm hyper-parameters...]
  std::vector<popx::TensorView> state;   // optimizer state, same order as VarUpdateSpec::state
  std::map<std::string, int64_t> modes;  // algorithm switches (nesterov, mode, ...)
};

using VarUpdateFn = void (*)(const VarUpdateArgs &);
void registerVarUpdate(const std::string &algorithm, VarUpdateFn fn);

} // namespace popart::cpu
