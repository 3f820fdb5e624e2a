// Type-erased "{}" formatting shared by errors and logging, so callers do not
// pull <sstream> or fmt into every translation unit.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace popart {

/// One argument of formatMessage, already rendered as text.
/// User types join in by providing a free `std::string toString(const T&)`.
class FormatArg {
public:
  FormatArg(const std::string &s) : text_(s) {}
  FormatArg(std::string_view s) : text_(s) {}
  FormatArg(const char *s) : text_(s ? s : "(null)") {}
  FormatArg(char c) : text_(1, c) {}
  FormatArg(bool b) : text_(b ? "true" : "false") {}
  template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool> &&
                                          !std::is_same_v<T, char>, int> = 0>
  FormatArg(T v) : text_(std::to_string(v)) {}
  template <class T, std::enable_if_t<std::is_floating_point_v<T>, int> = 0>
  FormatArg(T v) : text_(formatFloat(static_cast<double>(v))) {}
  template <class T, std::enable_if_t<std::is_enum_v<T>, int> = 0>
  FormatArg(T v) : text_(std::to_string(static_cast<int64_t>(v))) {}
  template <class T>
  FormatArg(const std::vector<T> &v) : text_(joinList(v)) {}
  template <class T, class = decltype(toString(std::declval<const T &>())),
            std::enable_if_t<!std::is_arithmetic_v<T>, int> = 0>
  FormatArg(const T &v) : text_(toString(v)) {}

  const std::string &str() const { return text_; }

private:
  static std::string formatFloat(double v);
  template <class T> static std::string joinList(const std::vector<T> &v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) {
      if (i) s += ",";
      s += FormatArg(v[i]).str();
    }
    return s + "]";
  }
  std::string text_;
};

/// Replaces each "{}" in `fmt` by the next argument; extra arguments are
/// appended, missing ones leave "{}" in place. "{{" and "}}" escape braces.
std::string formatMessage(std::string_view fmt, std::initializer_list<FormatArg> args);

} // namespace popart
