#include "transforms/decompose_sum.hpp"
#include "popart/graph.hpp"
#include "popart/ir.hpp"
#include "popart/op.hpp"
#include "popart/opmanager.hpp"
#include "popart/tensor.hpp"
#include <string>
#include <vector>

namespace popart {
namespace {

bool isWideSum(const Op &op) {
  return op.opid.domain == "ai.onnx" && op.opid.type == "Sum" && op.input->n() > 2 && op.hasOutput(0);
}

void decompose(Graph &g, Op *sum) {
  std::vector<TensorId> ins;
  for (InIndex i = 0; i < sum->input->maxIndex(); ++i)
    if (sum->hasInput(i)) ins.push_back(sum->inId(i));
  const TensorId out = sum->outId(0);
  const std::string name = sum->name().empty() ? "Sum_" + out : sum->name();
  const auto vgraph = sum->settings.vgraphId;
  g.eraseOp(sum->id);  // `out` stays, with its consumers; the last Add produces it
  TensorId acc = ins[0];
  for (size_t i = 1; i < ins.size(); ++i) {
    const TensorId next = i + 1 == ins.size() ? out : g.getIr().createIntermediateTensorId(out + "_partial");
    Op *add = g.createConnectedOp(OperatorIdentifier("ai.onnx", "Add", 14), {{0, acc}, {1, ins[i]}}, {{0, next}},
                                  Attributes(), name + "_add" + std::to_string(i));
    add->settings.vgraphId = vgraph;
    acc = next;
  }
}

} // namespace

int decomposeSums(Graph &g) {
  std::vector<Op *> sums;
  for (const auto &[id, op] : g.getOps())
    if (isWideSum(*op)) sums.push_back(op.get());
  for (Op *sum : sums) decompose(g, sum);
  return static_cast<int>(sums.size());
}

} // namespace popart
