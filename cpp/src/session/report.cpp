// Session::getSummaryReport: per-op time and memory from the CPU executor.
#include "cpu/executor.hpp"
#include "popart/graph.hpp"
#include "popart/ir.hpp"
#include "popart/optimizer.hpp"
#include "popart/session.hpp"
#include "popart/tensor.hpp"
#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>

namespace popart {

namespace {

/// Time per op type (the fused kernels appear as their own types), largest first.
std::string byType(const std::vector<const popx::OpStats *> &stats, std::chrono::nanoseconds total) {
  struct Row {
    int64_t ops = 0, calls = 0;
    std::chrono::nanoseconds time{0};
  };
  std::map<std::string, Row> rows;
  for (const auto *s : stats) {
    Row &r = rows[s->op->opid.type];
    ++r.ops;
    r.calls += s->calls;
    r.time += s->time;
  }
  std::vector<std::pair<std::string, Row>> order(rows.begin(), rows.end());
  std::sort(order.begin(), order.end(), [](const auto &a, const auto &b) { return a.second.time > b.second.time; });
  std::ostringstream os;
  char line[256];
  std::snprintf(line, sizeof(line), "time by op type:\n%-32s %6s %10s %12s %8s\n", "type", "ops", "calls", "total ms", "%");
  os << line;
  for (const auto &[type, r] : order) {
    double pct = total.count() ? 100.0 * r.time.count() / total.count() : 0.0;
    std::snprintf(line, sizeof(line), "%-32.32s %6lld %10lld %12.3f %8.2f\n", type.c_str(), static_cast<long long>(r.ops),
                  static_cast<long long>(r.calls), r.time.count() / 1e6, pct);
    os << line;
  }
  return os.str();
}

} // namespace

std::string Session::getSummaryReport(bool resetProfile) const {
  std::ostringstream os;
  if (!devicex_ || !devicex_->isPrepared()) return "session '" + name_ + "' is not prepared\n";
  const auto &stats = devicex_->opStats();
  std::vector<const popx::OpStats *> order;
  std::chrono::nanoseconds total{0};
  for (const auto &s : stats) {
    order.push_back(&s);
    total += s.time;
  }
  std::sort(order.begin(), order.end(), [](auto *a, auto *b) { return a->time > b->time; });
  char line[512];
  os << "popart-cpu summary report for session '" << name_ << "'\n";
  std::snprintf(line, sizeof(line),
                "memory: activations arena %.3f MB, persistent (weights, inputs, constants) %.3f MB, "
                "op workspace %.3f MB\n",
                devicex_->plannedBytes() / 1e6, devicex_->persistentBytes() / 1e6, devicex_->workspaceBytes() / 1e6);
  os << line;
  std::snprintf(line, sizeof(line), "replicas: %lld in this process, %d thread(s) each (memory above is per replica)\n",
                static_cast<long long>(devicex_->localReplicas()), devicex_->threadsPerReplica());
  os << line;
  if (const auto [tensors, bytes] = devicex_->sharedTensors(); tensors > 0) {
    std::snprintf(line, sizeof(line),
                  "shared by the replicas: %lld weight and optimizer state tensor(s), %.3f MB held once%s, each "
                  "replica updating a slice; %lld gradient(s) read in place by the other replicas; %lld weight "
                  "gradient(s) made from every replica's activations\n",
                  static_cast<long long>(tensors), bytes / 1e6,
                  devicex_->sharedAcrossProcesses() ? " in memory the processes of this host share" : "",
                  static_cast<long long>(devicex_->gradientsReadInPlace()),
                  static_cast<long long>(devicex_->gradientsFromAllReplicas()));
    os << line;
  }
  int64_t stateBytes = 0, stateTensors = 0;  // on each replica: a sharded state holds its shard only
  for (const Tensor *t : ir_->getMainGraph().getTensors().getOfType(TensorType::Variable))
    if (isOptimizerStateId(t->id)) {
      stateBytes += t->info.nbytes();
      ++stateTensors;
    }
  std::snprintf(line, sizeof(line), "optimizer state: %lld bytes per replica in %lld tensor(s)\n",
                static_cast<long long>(stateBytes), static_cast<long long>(stateTensors));
  os << line;
  std::string inPlace;
  for (const Tensor *t : ir_->getMainGraph().getTensors().getOfType(TensorType::Stream))
    if (devicex_->replica(0).readsInPlace(t)) inPlace += (inPlace.empty() ? "" : ", ") + t->id;
  os << "input streams read in place from the step IO's arrays (no copy): " << (inPlace.empty() ? "none" : inPlace)
     << "\n";
  if (!devicex_->pipelineSummary().empty()) os << devicex_->pipelineSummary() << "\n";
  std::snprintf(line, sizeof(line), "time in ops since last reset: %.3f ms over %zu ops\n", total.count() / 1e6, stats.size());
  os << line;
  std::snprintf(line, sizeof(line), "%-48s %-24s %10s %12s %8s %12s\n", "op", "type", "calls", "total ms", "%", "out bytes");
  os << line;
  for (const auto *s : order) {
    int64_t outBytes = 0;
    for (const auto &[i, t] : s->op->output->tensorMap()) outBytes += t->info.nbytes();
    double pct = total.count() ? 100.0 * s->time.count() / total.count() : 0.0;
    std::snprintf(line, sizeof(line), "%-48.48s %-24.24s %10lld %12.3f %8.2f %12lld\n", s->op->name().empty() ? s->op->debugName().c_str() : s->op->name().c_str(),
                  s->op->opid.type.c_str(), static_cast<long long>(s->calls), s->time.count() / 1e6, pct,
                  static_cast<long long>(outBytes));
    os << line;
  }
  os << byType(order, total);
  if (resetProfile) devicex_->resetStats();
  return os.str();
}

} // namespace popart
