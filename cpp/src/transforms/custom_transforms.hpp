// The IR pipeline's custom-transform checkpoints (Fwd0, Fwd1, Bwd0, PreAlias,
// MainLoops, Final), configured by experimentalSettings.customTransformApplierSettings.
#pragma once
#include <string>

namespace popart {
class Ir;
/// Throws naming an unknown checkpoint or an unregistered transform.
void checkCustomTransformSettings(const Ir &ir);
/// Applies, in order, the transforms the settings name for `checkpoint` to the main graph.
void applyCustomTransforms(Ir &ir, const std::string &checkpoint);
} // namespace popart
