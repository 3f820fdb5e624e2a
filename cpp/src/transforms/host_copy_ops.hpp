// SessionOptions::useHostCopyOps: the implicit stream copies become IR ops.
// Every input stream X becomes Init -> HostLoad -> X (X turns into an
// activation) and every anchor A gets a HostStore(A); the executor then moves
// data only where those ops run.
#pragma once

namespace popart {
class Ir;
void addHostCopyOps(Ir &ir);
} // namespace popart
