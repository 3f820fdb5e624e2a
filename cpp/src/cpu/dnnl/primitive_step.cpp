// Primitive lists with layout reorders and FLOAT16 staging, run as one step.
#ifdef POPART_WITH_DNNL  // the build option; without it the kernels use their plain loops
#include "primitive_step.hpp"
#include "cpu/devicex.hpp"
#include "popart/tensor.hpp"
#include "popart/error.hpp"
#include "popart/logging.hpp"
#include <cstdlib>
#include <memory>

namespace popart::cpu {
namespace {

/// Slot i of this thread's workspace, grown to at least `bytes` (steps run one at a time per thread).
void *dnnlWorkspaceSlot(size_t i, size_t bytes) {
  struct Slot {
    std::unique_ptr<char, decltype(&std::free)> data{nullptr, &std::free};
    size_t size = 0;
  };
  thread_local std::vector<Slot> slots;
  if (slots.size() <= i) slots.resize(i + 1);
  auto &s = slots[i];
  if (s.size < bytes) {
    s.data.reset(static_cast<char *>(std::aligned_alloc(64, (bytes + 63) / 64 * 64)));
    if (!s.data) throw error("cannot allocate {} bytes of oneDNN workspace", bytes);
    s.size = bytes;
  }
  return s.data.get();
}

} // namespace

dnnl::memory PrimitiveStep::workspaceMemory(const dnnl::memory::desc &md) {
  workspace_.push_back(dnnl::memory(md, dnnl_ctx::engine(), static_cast<void *>(nullptr)));
  return workspace_.back();
}

dnnl::memory PrimitiveStep::inputAs(const dnnl::memory &plain, const dnnl::memory::desc &want) {
  if (plain.get_desc() == want) return plain;
  auto m = workspaceMemory(want);
  add(dnnl::reorder(plain, m), {{DNNL_ARG_FROM, plain}, {DNNL_ARG_TO, m}});
  return m;
}

dnnl::memory PrimitiveStep::inputCachedAs(const dnnl::memory &plain, const dnnl::memory::desc &want,
                                          const uint64_t *counter) {
  if (!counter) return inputAs(plain, want);
  if (plain.get_desc() == want) return plain;
  dnnl::memory to(want, dnnl_ctx::engine());  // owned by the step, laid out for the primitive
  cached_.push_back({dnnl::reorder(plain, to), plain, to, counter, ~uint64_t{0}});  // never a counter value
  return to;
}

void PrimitiveStep::refreshCached(size_t i, const void *plain) const {
  auto &c = cached_.at(i);
  c.from.set_data_handle(const_cast<void *>(plain));
  auto &s = dnnl_ctx::stream();
  c.reorder.execute(s, c.from, c.to);
  s.wait();
  c.seen = *c.counter;
}

void PrimitiveStep::writeBackCached(size_t i, void *plain) const {
  dnnl::memory src = cached_.at(i).to, dst(cached_.at(i).from.get_desc(), dnnl_ctx::engine(), plain);
  auto &s = dnnl_ctx::stream();
  dnnl::reorder(src, dst).execute(s, src, dst);
  s.wait();
}

dnnl::memory PrimitiveStep::outputAs(const dnnl::memory &plain, const dnnl::memory::desc &have) {
  return plain.get_desc() == have ? plain : workspaceMemory(have);
}

void PrimitiveStep::finishOutput(const dnnl::memory &produced, const dnnl::memory &plain) {
  if (produced.get() == plain.get()) return;
  add(dnnl::reorder(produced, plain), {{DNNL_ARG_FROM, produced}, {DNNL_ARG_TO, plain}});
}

void PrimitiveStep::operator()() const {
  for (size_t i = 0; i < workspace_.size(); ++i)
    workspace_[i].set_data_handle(dnnlWorkspaceSlot(i, workspace_[i].get_desc().get_size()));
  staging.toFloat();
  auto &s = dnnl_ctx::stream();
  for (auto &c : cached_)
    if (c.seen != *c.counter) {
      c.reorder.execute(s, c.from, c.to);
      c.seen = *c.counter;
    }
  auto work = work_.begin();
  for (size_t i = 0; i <= primitives.size(); ++i) {
    for (; work != work_.end() && work->first == i; ++work) {
      s.wait();
      work->second();
    }
    if (i < primitives.size()) primitives[i].first.execute(s, primitives[i].second);
  }
  s.wait();
  if (epilogue) epilogue();
  staging.fromFloat();
}

void readsStream(const popx::Opx &opx, InIndex i, dnnl::memory m) {
  const Tensor *t = opx.op_p->inTensor(i);
  if (t->tensorType() != TensorType::Stream || m.get_data_handle() != opx.dv_p->view(t).raw()) return;
  opx.dv_p->addStreamReader(t, [m](const void *p) mutable { m.set_data_handle(const_cast<void *>(p)); });
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
#endif
