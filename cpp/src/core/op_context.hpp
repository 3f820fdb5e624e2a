// The context withOpContext (popart/graph.hpp) gives errors, for callers whose work may erase the op
// before it throws (a pattern replacing the op): take the context first, then run.
#pragma once
#include <functional>
#include <string>

namespace popart {

class Op;

/// "<op debug name>, inputs [<id>:<info>, ...]".
std::string opContextOf(const Op &op);
/// withOpContext with the context taken beforehand.
void withOpContext(const std::string &opContext, const char *what, const std::function<void()> &f);

} // namespace popart
