// Turns ops into their in-place variants where no one else needs the input.
#pragma once

namespace popart {
class Graph;
bool inplace(Graph &g);
} // namespace popart
