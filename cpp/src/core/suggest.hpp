// "Did you mean" for misspelt names (ops, options): the closest candidates by
// case-insensitive edit distance.
#pragma once
#include <string>
#include <vector>

namespace popart {

/// " — did you mean 'Relu'?" naming the closest candidates (ties named, at
/// most three), or "" when none is close to `name`.
std::string didYouMean(const std::string &name, const std::vector<std::string> &candidates);

} // namespace popart
