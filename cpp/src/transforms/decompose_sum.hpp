// decomposeSums: each ai.onnx Sum of more than two inputs in a graph becomes a chain of Adds
// (popxl.transforms.decompose_sum), so partial sums are formed as their operands become ready instead of
// keeping every operand alive until one Sum runs (gradient sums of autodiff are such Sums).
#pragma once

namespace popart {
class Graph;
/// Returns the number of Sum ops replaced.
int decomposeSums(Graph &g);
} // namespace popart
