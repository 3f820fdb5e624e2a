// oneDNN engine/stream singletons and descriptor helpers.
#ifdef POPART_WITH_DNNL  // the build option; without it the kernels use their plain loops
#include "dnnl_context.hpp"

namespace popart::cpu::dnnl_ctx {

dnnl::engine &engine() {
  static dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  return eng;
}

dnnl::stream &stream() {
  thread_local dnnl::stream s(engine());
  return s;
}

bool usesDnnl(DataType t) { return t == DataType::FLOAT || t == DataType::FLOAT16; }

dnnl::memory::data_type computeType(DataType t) {
  return usesDnnl(t) ? dnnl::memory::data_type::f32 : dnnl::memory::data_type::undef;
}

dnnl::memory::dims dims(const Shape &s) {
  if (s.empty()) return {1};
  return dnnl::memory::dims(s.begin(), s.end());
}

dnnl::memory::desc plainDesc(const Shape &shape, dnnl::memory::data_type t) {
  auto d = dims(shape);
  dnnl::memory::dims strides(d.size(), 1);
  for (size_t i = d.size() - 1; i > 0; --i) strides[i - 1] = strides[i] * d[i];
  return dnnl::memory::desc(d, t, strides);
}

dnnl::memory plainMemory(const Shape &shape, void *data) { return wrap(plainDesc(shape), data); }

dnnl::memory wrap(const dnnl::memory::desc &md, void *data) { return dnnl::memory(md, engine(), data); }

void appendRelu(dnnl::post_ops &ops) {
  ops.append_eltwise(dnnl::algorithm::eltwise_elu, 0.f, 0.f);
  ops.append_eltwise(dnnl::algorithm::eltwise_linear, 1.f, 0.f);
}

} // namespace popart::cpu::dnnl_ctx
#endif
