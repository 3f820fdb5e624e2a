// Primitive lists with layout reorders and FLOAT16 staging, run as one step.
#include "primitive_step.hpp"
#include "popart/logging.hpp"

namespace popart::cpu {

dnnl::memory PrimitiveStep::inputAs(const dnnl::memory &plain, const dnnl::memory::desc &want) {
  if (plain.get_desc() == want) return plain;
  dnnl::memory m(want, dnnl_ctx::engine());
  add(dnnl::reorder(plain, m), {{DNNL_ARG_FROM, plain}, {DNNL_ARG_TO, m}});
  return m;
}

dnnl::memory PrimitiveStep::outputAs(const dnnl::memory &plain, const dnnl::memory::desc &have) {
  if (plain.get_desc() == have) return plain;
  return dnnl::memory(have, dnnl_ctx::engine());
}

void PrimitiveStep::finishOutput(const dnnl::memory &produced, const dnnl::memory &plain) {
  if (produced.get() == plain.get()) return;
  add(dnnl::reorder(produced, plain), {{DNNL_ARG_FROM, produced}, {DNNL_ARG_TO, plain}});
}

void PrimitiveStep::operator()() const {
  staging.toFloat();
  auto &s = dnnl_ctx::stream();
  for (const auto &[p, args] : primitives) p.execute(s, args);
  s.wait();
  if (epilogue) epilogue();
  staging.fromFloat();
}

void addStep(popx::Sequence &prog, std::shared_ptr<PrimitiveStep> step, const popx::Opx &opx) {
  for (const auto &[p, args] : step->primitives) {
    const char *impl = nullptr;
    dnnl_primitive_desc_query(p.get_primitive_desc(), dnnl_query_impl_info_str, 0, &impl);
    logging::opx::debug("{}: oneDNN {}", opx.op_p->debugName(), impl ? impl : "?");
  }
  prog.add([step] { (*step)(); });
}

} // namespace popart::cpu
