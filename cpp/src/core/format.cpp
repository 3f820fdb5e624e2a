#include "popart/format.hpp"
#include <cmath>
#include <cstdio>

namespace popart {

std::string FormatArg::formatFloat(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.6g", v);
  return buf;
}

std::string formatMessage(std::string_view fmt, std::initializer_list<FormatArg> args) {
  std::string out;
  out.reserve(fmt.size() + 16 * args.size());
  auto next = args.begin();
  for (size_t i = 0; i < fmt.size(); ++i) {
    char c = fmt[i];
    bool pair = i + 1 < fmt.size() && fmt[i + 1] == c;
    if ((c == '{' || c == '}') && pair && !(c == '{' && fmt[i + 1] == '}')) {
      out += c;  // "{{" or "}}"
      ++i;
    } else if (c == '{' && i + 1 < fmt.size() && fmt[i + 1] == '}' && next != args.end()) {
      out += (next++)->str();
      ++i;
    } else {
      out += c;
    }
  }
  for (; next != args.end(); ++next) out += " " + next->str();
  return out;
}

} // namespace popart
