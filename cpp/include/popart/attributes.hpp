// Named attributes of an op, as read from an ONNX node or set by a pass.
#pragma once
#include "popart/tensorinfo.hpp"
#include <map>
#include <string>
#include <variant>
#include <vector>

namespace popart {

class Attributes {
public:
  using Int = int64_t;
  using Ints = std::vector<int64_t>;
  using Float = float;
  using Floats = std::vector<float>;
  using String = std::string;
  using Strings = std::vector<std::string>;
  /// A tensor-valued attribute (ONNX Constant's `value`, ConstantOfShape's `value`).
  struct Tensor {
    TensorInfo info;
    std::vector<char> data;
  };
  /// A sub-graph attribute (If/Loop/Scan bodies) imported as an IR graph.
  struct Graph {
    GraphId id;
  };
  using Graphs = std::vector<Graph>;
  using Value = std::variant<Int, Float, String, Ints, Floats, Strings, Tensor, Graph, Graphs>;

  bool hasAttribute(const std::string &name) const { return values_.count(name) != 0; }
  /// Throws popart::error naming the attribute when missing or of another type.
  template <class T> const T &getAttribute(const std::string &name) const;
  template <class T> T getAttribute(const std::string &name, const T &defaultValue) const;
  void setAttribute(const std::string &name, Value v) { values_[name] = std::move(v); }
  void removeAttribute(const std::string &name) { values_.erase(name); }
  std::vector<std::string> getAttributeNames() const;
  const std::map<std::string, Value> &values() const { return values_; }
  bool empty() const { return values_.empty(); }

private:
  std::map<std::string, Value> values_;
};

/// Name of the alternative held by an attribute value ("INT", "FLOATS", ...).
std::string attributeTypeName(const Attributes::Value &v);
std::string toString(const Attributes::Value &v);

} // namespace popart
