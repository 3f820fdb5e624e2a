// Gradients of separable gathers (Expand, Tile, Pad, Resize). Their forward reads,
// per axis, y[.., o, ..] = sum_k w_k(o) x[.., i_k(o), ..]; the gradient applies the
// transpose one axis at a time: dx[.., i, ..] = sum_{(o, k): i_k(o) = i} w_k(o) dy[.., o, ..].
// Each transposed axis is a list of (o, w) per i built once at grow(), so a pass
// gathers into its rows without write conflicts and runs in parallel.
#pragma once
#include "popart/names.hpp"
#include "popart/popx/opx.hpp"
#include <cstdint>
#include <vector>

namespace popart::cpu {

/// The transpose of one axis of a separable gather.
struct AxisTranspose {
  /// The forward's output o (of `from`) reads idx[o * taps + k] (skipped when < 0)
  /// with weight w[o * taps + k] (1 when `w` is empty); dx has length `to`.
  AxisTranspose(int axis, int64_t to, int64_t from, int64_t taps, const std::vector<int64_t> &idx,
                const std::vector<double> &w = {});
  /// A plain copy along the axis (no pass needed).
  bool isIdentity() const;

  int axis;
  int64_t to, from;
  std::vector<int64_t> start, src;  // row i: entries [start[i], start[i + 1]) of src/w
  std::vector<double> w;
  bool unit = true;  // every weight is 1
};

/// Appends to `prog` the step dx = (transposed gather)(dy) for the opx's input 0
/// (dy) and output 0 (dx) of a float type, passing the axes that shrink most first.
/// Scratch buffers are planned once here.
void growAxisTranspose(const popx::Opx &opx, popx::Sequence &prog, std::vector<AxisTranspose> axes);

} // namespace popart::cpu
