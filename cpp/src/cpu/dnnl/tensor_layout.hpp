// Activations exchanged between oneDNN convolutions and poolings in oneDNN's own layouts: a producer
// (Conv, ConvFused, MaxPool, AveragePool forward, FLOAT, inference) may leave its output in the layout its
// primitive prefers when every reader takes any layout, so no reorder to plain NCHW and back runs in
// between. Graph inputs/outputs, anchors and tensors read by other ops stay plain.
#pragma once
#include "dnnl_context.hpp"

namespace popart {
class Tensor;
}

namespace popart::cpu::tensor_layout {

/// Whether producer output `t` may be stored in a oneDNN layout: FLOAT, inference, not a graph output or
/// anchor, and read only as X/Z of Conv/ConvFused or X of MaxPool/AveragePool (no Indices, no ceil_mode).
bool mayBlock(const Tensor &t);
/// Records the layout of `t` (the producer calls this in grow(), before its consumers grow); a plain
/// descriptor, or an empty one, records plain.
void publish(const Tensor &t, const dnnl::memory::desc &md);
/// The layout of `t` as its producer recorded it, or row-major `plain`.
dnnl::memory::desc layoutOf(const Tensor &t);
/// `md` when `t` may hold it (mayBlock and it fits t's buffer), else the plain descriptor of t.
dnnl::memory::desc storable(const Tensor &t, const dnnl::memory::desc &md);

} // namespace popart::cpu::tensor_layout
