#include "loss_reduction.hpp"
#include "popart/error.hpp"
#include "popart/op.hpp"
#include <variant>

namespace popart {

std::string lossReductionName(int64_t reduction) {
  switch (reduction) {
  case 0: return "Sum";
  case 1: return "Mean";
  case 2: return "NoReduction";
  default: throw error("reduction must be 0 (Sum), 1 (Mean) or 2 (NoReduction), got {}", reduction);
  }
}

int64_t lossReduction(const Op &op) {
  const auto &values = op.attributes().values();
  auto it = values.find("reduction");
  if (it == values.end()) return 1;
  if (const auto *text = std::get_if<Attributes::String>(&it->second)) {
    for (int64_t r = 0; r < 3; ++r)
      if (*text == lossReductionName(r)) return r;
    throw error("{}: attribute reduction must be \"Sum\", \"Mean\" or \"NoReduction\", got \"{}\"", op.str(), *text);
  }
  if (const auto *i = std::get_if<Attributes::Int>(&it->second)) {
    if (*i < 0 || *i > 2)
      throw error("{}: attribute reduction must be 0 (Sum), 1 (Mean) or 2 (NoReduction), got {}", op.str(), *i);
    return *i;
  }
  throw error("{}: attribute reduction must be a STRING or an INT, got {}", op.str(), attributeTypeName(it->second));
}

} // namespace popart
