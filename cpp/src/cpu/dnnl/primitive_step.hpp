// One run-time step executing oneDNN primitives over memories bound at grow()
// time (planned buffers have stable addresses), with FLOAT16 staging around them.
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
  /// `plain` seen with layout `want`: `plain` itself when the layouts agree,
  /// else a oneDNN-owned memory filled by a reorder appended now.
  dnnl::memory inputAs(const dnnl::memory &plain, const dnnl::memory::desc &want);
  /// Memory of layout `have` for a primitive output that must end in `plain`:
  /// `plain` itself when the layouts agree; else call finishOutput after adding the primitive.
  static dnnl::memory outputAs(const dnnl::memory &plain, const dnnl::memory::desc &have);
  void finishOutput(const dnnl::memory &produced, const dnnl::memory &plain);
  void operator()() const;
};

/// Appends a step running `step` to `prog`; logs (opx, debug) the implementations oneDNN chose for opx's op.
void addStep(popx::Sequence &prog, std::shared_ptr<PrimitiveStep> step, const popx::Opx &opx);

} // namespace popart::cpu
