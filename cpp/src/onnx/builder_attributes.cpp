// Builder node attributes: conversion between popart::NodeAttribute and ONNX
// attributes, and the type check against the op table (PopART's coercions).
#include "ops/loss_reduction.hpp"
#include "onnx/builder_impl.hpp"
#include "onnx/import.hpp"
#include "onnx/op_schema.hpp"
#include "popart/error.hpp"
#include <optional>

namespace popart {
namespace {

using AT = onnxpb::Attribute::Type;

onnxpb::Tensor toOnnxTensor(const ConstTensorData &d) {
  onnxpb::Tensor t;
  t.dims = d.info.shape();
  t.dataType = onnxDataType(d.info.dataType());
  t.hasRawData = true;
  t.rawData = packedRawData(d.info, d.bytes.data());
  return t;
}

OpAttrType typeOf(const NodeAttribute &v) {
  static const OpAttrType types[] = {OpAttrType::Int,    OpAttrType::Ints,    OpAttrType::Float,
                                     OpAttrType::Floats, OpAttrType::String,  OpAttrType::Strings,
                                     OpAttrType::Tensor, OpAttrType::Graph,   OpAttrType::Graphs};
  return types[v.index()];
}

bool isEmptyList(const NodeAttribute &v) {
  if (auto p = std::get_if<std::vector<int64_t>>(&v)) return p->empty();
  if (auto p = std::get_if<std::vector<float>>(&v)) return p->empty();
  if (auto p = std::get_if<std::vector<std::string>>(&v)) return p->empty();
  if (auto p = std::get_if<std::vector<SubgraphRef>>(&v)) return p->empty();
  return false;
}

std::optional<NodeAttribute> emptyOf(OpAttrType t) {
  switch (t) {
  case OpAttrType::Ints: return NodeAttribute(std::vector<int64_t>{});
  case OpAttrType::Floats: return NodeAttribute(std::vector<float>{});
  case OpAttrType::Strings: return NodeAttribute(std::vector<std::string>{});
  case OpAttrType::Graphs: return NodeAttribute(std::vector<SubgraphRef>{});
  default: return std::nullopt;
  }
}

} // namespace

std::string toString(const NodeAttribute &a) {
  std::string text = toString(typeOf(a)) + " ";
  std::visit([&text](const auto &v) {
    using T = std::decay_t<decltype(v)>;
    if constexpr (std::is_same_v<T, ConstTensorData>) text += v.info.toString();
    else if constexpr (std::is_same_v<T, SubgraphRef> || std::is_same_v<T, std::vector<SubgraphRef>>) text += "<graph>";
    else text += FormatArg(v).str();
  }, a);
  return text;
}

onnxpb::Attribute toOnnxAttribute(const std::string &name, const NodeAttribute &value) {
  onnxpb::Attribute a;
  a.name = name;
  std::visit([&a](const auto &v) {
    using T = std::decay_t<decltype(v)>;
    if constexpr (std::is_same_v<T, int64_t>) a.type = AT::Int, a.i = v, a.hasI = true;
    else if constexpr (std::is_same_v<T, float>) a.type = AT::Float, a.f = v, a.hasF = true;
    else if constexpr (std::is_same_v<T, std::string>) a.type = AT::String, a.s = v, a.hasS = true;
    else if constexpr (std::is_same_v<T, std::vector<int64_t>>) a.type = AT::Ints, a.ints = v;
    else if constexpr (std::is_same_v<T, std::vector<float>>) a.type = AT::Floats, a.floats = v;
    else if constexpr (std::is_same_v<T, std::vector<std::string>>) a.type = AT::Strings, a.strings = v;
    else if constexpr (std::is_same_v<T, ConstTensorData>) a.type = AT::Tensor, a.t = toOnnxTensor(v), a.hasT = true;
    else if constexpr (std::is_same_v<T, SubgraphRef>) {
      a.type = AT::Graph;
      a.g = std::make_shared<onnxpb::Graph>(BuilderImpl::subgraphOf(v));
      a.hasG = true;
    } else {
      a.type = AT::Graphs;
      for (const auto &ref : v) a.graphs.push_back(std::make_shared<onnxpb::Graph>(BuilderImpl::subgraphOf(ref)));
    }
  }, value);
  return a;
}

NodeAttribute fromOnnxAttribute(const onnxpb::Attribute &a) {
  switch (a.type) {
  case AT::Int: return a.i;
  case AT::Float: return a.f;
  case AT::String: return a.s;
  case AT::Ints: return a.ints;
  case AT::Floats: return a.floats;
  case AT::Strings: return a.strings;
  case AT::Tensor: {
    ConstTensorData d;
    d.info = tensorInfoOf(a.t);
    const auto bytes = tensorBytes(a.t, d.info);
    d.bytes.assign(bytes.begin(), bytes.end());
    return d;
  }
  default:
    throw error("attribute '{}' of type {} cannot be read through the Builder", a.name,
                static_cast<int>(a.type));
  }
}

NodeAttribute coerceAttribute(const OpSchema &schema, int opset, const std::string &name,
                              const NodeAttribute &value) {
  const auto *attr = schema.findAttribute(name);
  if (!attr) {
    if (name.rfind("__", 0) == 0) return value;  // PopART annotations go on any node
    throw error("Op {} ({} opset {}) has no attribute '{}'", schema.type, schema.domain, opset, name);
  }
  auto got = typeOf(value);
  if (got == attr->type) return value;
  if (attr->type == OpAttrType::Float && got == OpAttrType::Int) {
    return static_cast<float>(std::get<int64_t>(value));
  }
  if (attr->type == OpAttrType::Floats && got == OpAttrType::Ints) {
    const auto &ints = std::get<std::vector<int64_t>>(value);
    return std::vector<float>(ints.begin(), ints.end());
  }
  if (isEmptyList(value)) {
    if (auto e = emptyOf(attr->type)) return *e;
  }
  if (name == "reduction" && schema.domain == "ai.graphcore" && attr->type == OpAttrType::String &&
      got == OpAttrType::Int) {
    return lossReductionName(std::get<int64_t>(value));  // ReductionType as PopART writes it
  }
  throw error("Attribute '{}' of op {} ({} opset {}) must be of type {}, got {}", name, schema.type,
              schema.domain, opset, toString(attr->type), toString(got));
}

} // namespace popart
