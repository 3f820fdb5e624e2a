#include "suggest.hpp"
#include <algorithm>
#include <cctype>

namespace popart {
namespace {

size_t editDistance(const std::string &a, const std::string &b) {
  auto lower = [](char c) { return std::tolower(static_cast<unsigned char>(c)); };
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

} // namespace

std::string didYouMean(const std::string &name, const std::vector<std::string> &candidates) {
  size_t best = std::max<size_t>(2, name.size() / 3) + 1;  // farther than this is no suggestion
  std::vector<std::string> found;
  for (const auto &c : candidates) {
    size_t d = editDistance(name, c);
    if (d < best) best = d, found.clear();
    if (d == best && std::find(found.begin(), found.end(), c) == found.end()) found.push_back(c);
  }
  if (found.empty()) return "";
  std::string text = " \u2014 did you mean ";
  for (size_t i = 0; i < found.size() && i < 3; ++i) text += (i ? " or '" : "'") + found[i] + "'";
  return text + "?";
}

} // namespace popart
