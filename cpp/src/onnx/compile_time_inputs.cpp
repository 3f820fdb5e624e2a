// The compile-time operands of the ai.onnx ops, by input index. Exporters
// (torch.onnx.export, both exporters) store these as initializers of any
// element type, e.g. a FLOAT Dropout ratio or Clip bound.
#include "compile_time_inputs.hpp"
#include "model.hpp"
#include "popart/opmanager.hpp"
#include <map>
#include <vector>

namespace popart {
namespace {

const std::map<std::string, std::vector<size_t>> &onnxCompileTimeInputs() {
  static const std::map<std::string, std::vector<size_t>> table = {
      {"Dropout", {1, 2}},         {"Reshape", {1}},           {"Resize", {1, 2, 3}},
      {"Upsample", {1}},           {"Slice", {1, 2, 3, 4}},    {"Pad", {1, 2, 3}},
      {"Clip", {1, 2}},            {"Expand", {1}},            {"Tile", {1}},
      {"Squeeze", {1}},            {"Unsqueeze", {1}},         {"Split", {1}},
      {"TopK", {1}},               {"OneHot", {1}},            {"ConstantOfShape", {0}},
      {"Range", {0, 1, 2}},        {"CumSum", {1}},            {"Trilu", {1}},
      {"ReduceSum", {1}},          {"ReduceMean", {1}},        {"ReduceMax", {1}},
      {"ReduceMin", {1}},          {"ReduceProd", {1}},        {"ReduceL1", {1}},
      {"ReduceL2", {1}},           {"ReduceLogSum", {1}},      {"ReduceLogSumExp", {1}},
      {"ReduceSumSquare", {1}},    {"NonMaxSuppression", {2, 3, 4}},
      {"MaxUnpool", {2}},          {"CenterCropPad", {1}},     {"Col2Im", {1, 2}},
      {"AffineGrid", {1}},         {"DFT", {1, 2}},            {"BlackmanWindow", {0}},
      {"HannWindow", {0}},         {"HammingWindow", {0}},     {"MelWeightMatrix", {0, 1, 2, 3, 4}},
      {"STFT", {1, 3}},
  };
  return table;
}

bool inTable(const std::string &opType, size_t index) {
  const auto &table = onnxCompileTimeInputs();
  auto it = table.find(opType);
  if (it == table.end()) return false;
  for (size_t i : it->second)
    if (i == index) return true;
  return false;
}

} // namespace

bool isCompileTimeInput(const std::string &domain, const std::string &opType, int64_t opset, size_t index) {
  bool onnx = domain.empty() || domain == Domain::ai_onnx;
  if (onnx && inTable(opType, index)) return true;
  const OperatorIdentifier *id = OpManager::resolve(onnx ? Domain::ai_onnx : domain, opType, opset);
  const OpDefinition *def = id ? OpManager::getDefinition(*id) : nullptr;
  return def && index < def->inputs.size() && def->inputs[index].constant;
}

std::set<std::string> compileTimeInitializers(const onnxpb::Graph &g,
                                              const std::function<int64_t(const std::string &)> &opsetOf) {
  std::set<std::string> inits;
  for (const auto &t : g.initializer) inits.insert(t.name);
  std::set<std::string> found;
  for (const auto &n : g.node) {
    std::string domain = n.domain.empty() ? Domain::ai_onnx : n.domain;
    for (size_t i = 0; i < n.input.size(); ++i)
      if (inits.count(n.input[i]) && isCompileTimeInput(domain, n.opType, opsetOf(domain), i))
        found.insert(n.input[i]);
  }
  return found;
}

} // namespace popart
