// Basic identifiers shared across the IR, the Builder and the sessions.
#pragma once
#include <cstdint>
#include <string>
#include <vector>
#include "popart/tensornames.hpp"  // reserved*Prefix(): Gradient___, Accl1___, ...

namespace popart {

using TensorId = std::string;
using OpId = int64_t;
using GraphId = std::string;
using OpType = std::string;
using OpDomain = std::string;
using OpVersion = int;
using OpName = std::string;
using InIndex = int;
using OutIndex = int;
using Shape = std::vector<int64_t>;
using VGraphId = int64_t;
using PipelineStage = int64_t;
using ExecutionPhase = int64_t;
using ReplicatedTensorId = std::string;

namespace Domain {
inline constexpr const char *ai_onnx = "ai.onnx";
inline constexpr const char *ai_onnx_ml = "ai.onnx.ml";
inline constexpr const char *ai_graphcore = "ai.graphcore";
} // namespace Domain

/// Identity of an operator: domain, type and the opset version it follows.
struct OperatorIdentifier {
  OperatorIdentifier() = default;
  OperatorIdentifier(std::string domain_, std::string type_, OpVersion version_,
                     int numInputsMin_ = -1, int numInputsMax_ = -1, int numOutputs_ = -1)
      : domain(domain_ == "" ? std::string(Domain::ai_onnx) : std::move(domain_)),
        type(std::move(type_)), version(version_), numInputsMin(numInputsMin_),
        numInputsMax(numInputsMax_), numOutputs(numOutputs_) {}
  std::string domain;
  std::string type;
  OpVersion version = 1;
  int numInputsMin = -1, numInputsMax = -1, numOutputs = -1;  // -1: unchecked

  bool operator==(const OperatorIdentifier &o) const {
    return domain == o.domain && type == o.type && version == o.version;
  }
  bool operator!=(const OperatorIdentifier &o) const { return !(*this == o); }
  bool operator<(const OperatorIdentifier &o) const;
};
std::string toString(const OperatorIdentifier &id);  // "ai.onnx.Softmax:13"


} // namespace popart
