// One run-time step executing oneDNN primitives over memories bound at grow()
// time (planned buffers have stable addresses), with FLOAT16 staging around them.
// Tensors in oneDNN's own layouts (reorder targets) live in a per-thread
// workspace shared by all steps: its size is the largest step's, not the sum.
#pragma once
#include "dnnl_context.hpp"
#include "float_staging.hpp"
#include <functional>
#include <memory>
#include <unordered_map>

namespace popart::cpu {

struct PrimitiveStep {
  using Args = std::unordered_map<int, dnnl::memory>;
  FloatStaging staging;
  std::vector<std::pair<dnnl::primitive, Args>> primitives;
  /// Plain-loop work run after the primitives (before FLOAT16 outputs are converted back).
  std::function<void()> epilogue;

  void add(dnnl::primitive p, Args args) { primitives.emplace_back(std::move(p), std::move(args)); }
  /// Plain-loop work run where it is added: after the primitives added before it, before those added after
  /// (a kernel of its own between oneDNN's input and output reorders).
  void addWork(std::function<void()> f) { work_.emplace_back(primitives.size(), std::move(f)); }
  /// `plain` seen with layout `want`: `plain` itself when the layouts agree,
  /// else a workspace memory filled by a reorder appended now.
  dnnl::memory inputAs(const dnnl::memory &plain, const dnnl::memory::desc &want);
  /// inputAs for a tensor only the host writes (Devicex::hostWriteCounter):
  /// reordered into step-owned memory at the first run and again only after
  /// *counter changes. A null counter falls back to inputAs.
  dnnl::memory inputCachedAs(const dnnl::memory &plain, const dnnl::memory::desc &want, const uint64_t *counter);
  /// Copies made by inputCachedAs, in call order.
  size_t cachedCount() const { return cached_.size(); }
  /// Remakes cached copy `i` now from plain data at `plain` (which later refreshes read too).
  void refreshCached(size_t i, const void *plain) const;
  /// Writes cached copy `i` back to `plain` in the plain layout.
  void writeBackCached(size_t i, void *plain) const;
  /// Memory of layout `have` for a primitive output that must end in `plain`:
  /// `plain` itself when the layouts agree (else a workspace memory); then call
  /// finishOutput after adding the primitive.
  dnnl::memory outputAs(const dnnl::memory &plain, const dnnl::memory::desc &have);
  void finishOutput(const dnnl::memory &produced, const dnnl::memory &plain);
  /// Memory of layout `md` in the per-thread workspace, valid during a run only (a pooling
  /// workspace, an intermediate result nobody reads afterwards).
  dnnl::memory scratch(const dnnl::memory::desc &md) { return workspaceMemory(md); }
  /// Runs the step; a step object must not run on two threads at once.
  void operator()() const;

private:
  dnnl::memory workspaceMemory(const dnnl::memory::desc &md);
  std::vector<dnnl::memory> workspace_;  // bound to per-thread workspace slot i at each run
  struct CachedReorder {
    dnnl::reorder reorder;
    dnnl::memory from, to;
    const uint64_t *counter;
    uint64_t seen;  // the counter's value when `to` was made (all ones: not yet)
  };
  mutable std::vector<CachedReorder> cached_;  // refreshed by operator()
  std::vector<std::pair<size_t, std::function<void()>>> work_;  // (primitives before it, work)
};

/// Registers `m` as the only reader of input `i` of opx within its steps: when that input is a main-graph input
/// stream and `m` reads its device buffer (no FLOAT16 staging), the executor may point `m` at the step IO's
/// array instead of copying each micro-batch into the buffer (Devicex::addStreamReader).
void readsStream(const popx::Opx &opx, InIndex i, dnnl::memory m);

/// Appends a step running `step` to `prog`; logs (opx, debug) the implementations oneDNN chose for opx's op.
void addStep(popx::Sequence &prog, std::shared_ptr<PrimitiveStep> step, const popx::Opx &opx);

} // namespace popart::cpu
