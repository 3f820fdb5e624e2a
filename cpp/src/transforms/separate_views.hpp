// separateViews: for IRs built op by op (PopXL), an op whose output merely shares its input's memory as an
// optimisation (Reshape, Detach, Identity, ...; not an in-place op and not marked as a view) must not let an
// in-place change of one of the two tensors show in the other.
#pragma once

namespace popart {
class Graph;

/// Gives the output of each such op in the alias group of a modified tensor its own memory: the op writes
/// a new tensor and a Nop copies it into the old output. Ops with attribute "view" = 1 (PopXL's reshape_,
/// flatten_, detach_) stay views.
void separateViews(Graph &g);
} // namespace popart
