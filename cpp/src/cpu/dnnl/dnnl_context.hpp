// The process-wide oneDNN CPU engine, one stream per thread, and helpers that
// turn TensorInfos into memory descriptors. Only cpp/src/cpu/ includes this.
#pragma once
#include "popart/tensorinfo.hpp"
#include <dnnl.hpp>

namespace popart::cpu::dnnl_ctx {

/// The CPU engine shared by every primitive of the process.
dnnl::engine &engine();
/// This thread's stream (replicas run as threads; a stream is not thread-safe).
dnnl::stream &stream();

/// The oneDNN type computing `t`: f32 for FLOAT and FLOAT16 (FLOAT16 tensors
/// are staged through float copies), undef when oneDNN is not used (DOUBLE, integers).
dnnl::memory::data_type computeType(DataType t);
bool usesDnnl(DataType t);

dnnl::memory::dims dims(const Shape &s);
/// Row-major descriptor of `shape` (rank 0 becomes [1]).
dnnl::memory::desc plainDesc(const Shape &shape, dnnl::memory::data_type t = dnnl::memory::data_type::f32);
/// Row-major f32 memory over `data` (not owned).
dnnl::memory plainMemory(const Shape &shape, void *data);
/// Memory of descriptor `md` over `data` (not owned).
dnnl::memory wrap(const dnnl::memory::desc &md, void *data);

/// Appends Relu to `ops` as ONNX (numpy) defines it: NaN stays NaN. oneDNN's eltwise_relu with alpha 0 is
/// max(x, 0), which turns NaN into 0; elu with alpha 0 (x > 0 ? x : 0 (e^x - 1)) keeps NaN and gives -0 for
/// negative x, and + 0 (eltwise_linear 1, 0) makes that +0.
void appendRelu(dnnl::post_ops &ops);

} // namespace popart::cpu::dnnl_ctx
