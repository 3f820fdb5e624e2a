// Removes ops whose results reach no anchor, graph output or side effect.
#pragma once

namespace popart {
class Graph;
bool prune(Graph &g);
} // namespace popart
