// The IR preparation pipeline: the named, ordered passes that turn an IR any
// front end built (ONNX import, PopXL, C++ code creating ops) into the IR the
// CPU executor lowers.
#pragma once
#include <functional>
#include <string>
#include <vector>

namespace popart {

class Ir;

struct IrPass {
  std::string name;
  std::function<void(Ir &)> run;
};

/// The passes in the order preparePipeline runs them. Passes that do not apply
/// (autodiff for inference, in-placing without the InPlace pattern, ...) are
/// in the list and do nothing.
const std::vector<IrPass> &irPasses();

/// Runs every pass of irPasses() on `ir`, then marks it prepared. Throws when
/// the IR was already prepared.
void runIrPipeline(Ir &ir);

} // namespace popart
