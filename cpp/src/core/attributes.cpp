#include "popart/attributes.hpp"
#include "popart/error.hpp"

namespace popart {
namespace {

template <class T> const char *typeNameOf();
template <> const char *typeNameOf<Attributes::Int>() { return "INT"; }
template <> const char *typeNameOf<Attributes::Float>() { return "FLOAT"; }
template <> const char *typeNameOf<Attributes::String>() { return "STRING"; }
template <> const char *typeNameOf<Attributes::Ints>() { return "INTS"; }
template <> const char *typeNameOf<Attributes::Floats>() { return "FLOATS"; }
template <> const char *typeNameOf<Attributes::Strings>() { return "STRINGS"; }
template <> const char *typeNameOf<Attributes::Tensor>() { return "TENSOR"; }
template <> const char *typeNameOf<Attributes::Graph>() { return "GRAPH"; }
template <> const char *typeNameOf<Attributes::Graphs>() { return "GRAPHS"; }

} // namespace

template <class T> const T &Attributes::getAttribute(const std::string &name) const {
  auto it = values_.find(name);
  if (it == values_.end()) throw error("required attribute '{}' is missing", name);
  if (auto *v = std::get_if<T>(&it->second)) return *v;
  throw error("attribute '{}' has type {}, expected {}", name, attributeTypeName(it->second),
              typeNameOf<T>());
}

template <class T> T Attributes::getAttribute(const std::string &name, const T &defaultValue) const {
  if (!hasAttribute(name)) return defaultValue;
  if constexpr (std::is_same_v<T, Attributes::Float>) {
    // ONNX writers sometimes store an integral value for a float attribute.
    if (auto *i = std::get_if<Attributes::Int>(&values_.at(name))) return static_cast<float>(*i);
  }
  return getAttribute<T>(name);
}

#define POPART_INSTANTIATE_ATTR(T)                                                                  \
  template const T &Attributes::getAttribute<T>(const std::string &) const;                         \
  template T Attributes::getAttribute<T>(const std::string &, const T &) const;
POPART_INSTANTIATE_ATTR(Attributes::Int)
POPART_INSTANTIATE_ATTR(Attributes::Float)
POPART_INSTANTIATE_ATTR(Attributes::String)
POPART_INSTANTIATE_ATTR(Attributes::Ints)
POPART_INSTANTIATE_ATTR(Attributes::Floats)
POPART_INSTANTIATE_ATTR(Attributes::Strings)
POPART_INSTANTIATE_ATTR(Attributes::Tensor)
POPART_INSTANTIATE_ATTR(Attributes::Graph)
POPART_INSTANTIATE_ATTR(Attributes::Graphs)
#undef POPART_INSTANTIATE_ATTR

std::vector<std::string> Attributes::getAttributeNames() const {
  std::vector<std::string> names;
  for (const auto &kv : values_) names.push_back(kv.first);
  return names;
}

std::string attributeTypeName(const Attributes::Value &v) {
  return std::visit([](const auto &x) { return std::string(typeNameOf<std::decay_t<decltype(x)>>()); }, v);
}

std::string toString(const Attributes::Value &v) {
  struct Printer {
    std::string operator()(const Attributes::Int &x) const { return std::to_string(x); }
    std::string operator()(const Attributes::Float &x) const { return FormatArg(x).str(); }
    std::string operator()(const Attributes::String &x) const { return x; }
    std::string operator()(const Attributes::Ints &x) const { return FormatArg(x).str(); }
    std::string operator()(const Attributes::Floats &x) const { return FormatArg(x).str(); }
    std::string operator()(const Attributes::Strings &x) const { return FormatArg(x).str(); }
    std::string operator()(const Attributes::Tensor &x) const { return "tensor " + x.info.toString(); }
    std::string operator()(const Attributes::Graph &x) const { return "graph " + x.id; }
    std::string operator()(const Attributes::Graphs &x) const { return std::to_string(x.size()) + " graphs"; }
  };
  return std::visit(Printer{}, v);
}

} // namespace popart
